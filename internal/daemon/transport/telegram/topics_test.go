package telegram

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/turn"
)

// sessions stands in for the asky store behind a chat: each conversation
// has a history of questions, `/session new` starts it afresh and
// `/session clear` asks first, as the CLI's chat commands do. The
// question "slow" waits for release.
type sessions struct {
	mu      sync.Mutex
	history map[string][]string
	release chan struct{}
}

func newSessions() *sessions {
	return &sessions{history: map[string][]string{}, release: make(chan struct{})}
}

// Run answers with the conversation, its model override and its history
// including the question.
func (s *sessions) Run(ctx context.Context, a daemon.Ask) (*turn.Result, error) {
	if a.Question == "slow" {
		select {
		case <-s.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history[a.Conversation] = append(s.history[a.Conversation], a.Question)
	return &turn.Result{Answer: fmt.Sprintf("%s model=%q history=%s", a.Conversation, a.Model, strings.Join(s.history[a.Conversation], "|"))}, nil
}

func (s *sessions) Command(_ context.Context, conv, text string) (daemon.CommandResult, error) {
	switch text {
	case "/session new":
		s.mu.Lock()
		delete(s.history, conv)
		s.mu.Unlock()
		return daemon.CommandResult{Handled: true, Reply: "started a new session for " + conv, NewSession: true}, nil
	case "/session clear":
		return daemon.CommandResult{Handled: true, Reply: "Clear " + conv + "? Reply yes.",
			Confirm: &daemon.Confirmation{What: "clearing " + conv, No: "kept " + conv, Yes: func(ctx context.Context, out daemon.ChatOutput) {
				s.mu.Lock()
				delete(s.history, conv)
				s.mu.Unlock()
				out.Final(ctx, "cleared "+conv, false)
			}}}, nil
	}
	return daemon.CommandResult{}, fmt.Errorf("unexpected command %q", text)
}

// forum is the chat of a message in the forum supergroup -500.
var forum = map[string]any{"id": -500, "type": "supergroup", "is_forum": true}

// inTopic is a message in forum topic thread of supergroup -500.
func inTopic(thread int) map[string]any {
	return map[string]any{"message_thread_id": thread, "is_topic_message": true, "chat": forum}
}

// waitAnswer waits for the message to chat that replies to message
// reply and returns its text and topic.
func waitAnswer(t *testing.T, api *fakeAPI, chat int64, reply int) (text, thread string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if text, thread, ok := answerTo(api, chat, reply); ok {
			return text, thread
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer to message %d in chat %d: %+v", reply, chat, api.sent(chat))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// answerTo is the answer to message reply sent so far, if any.
func answerTo(api *fakeAPI, chat int64, reply int) (text, thread string, ok bool) {
	want := fmt.Sprintf(`{"message_id":%d,`, reply)
	for _, c := range api.sent(chat) {
		if strings.HasPrefix(c.Params["reply_parameters"], want) {
			return c.Params["text"], c.Params["message_thread_id"], true
		}
	}
	return "", "", false
}

// Each forum topic is a conversation of its own: a question in one topic
// is answered while another topic's question is still running, each
// keeps its own history, and /session, inline overrides and an open
// yes/no question stay in their topic. The topics are admitted because
// their chat is allowed (user 9 is not).
func TestForumTopicsAreSeparateConversations(t *testing.T) {
	api := newFake(t)
	s := newSessions()
	start(t, api, s, "", func(o *Options) { o.Chat.Commands = s })
	ask := func(id, thread int, text string) {
		api.push(id, 9, -500, text, inTopic(thread))
	}
	expect := func(id int, wantThread, want string) {
		t.Helper()
		text, thread := waitAnswer(t, api, -500, id)
		if thread != wantThread || text != want {
			t.Fatalf("answer to %d in topic %q: %q; want %q in topic %s", id, thread, text, want, wantThread)
		}
	}

	ask(1, 77, "slow")
	ask(2, 78, "quick")
	// Topic 78 is answered while topic 77's question still runs.
	expect(2, "78", `telegram:-500:78 model="" history=quick`)
	if text, _, ok := answerTo(api, -500, 1); ok {
		t.Fatalf("the slow question was answered early: %q", text)
	}
	close(s.release)
	expect(1, "77", `telegram:-500:77 model="" history=slow`)

	ask(3, 77, "second")
	expect(3, "77", `telegram:-500:77 model="" history=slow|second`)
	ask(4, 78, "second")
	expect(4, "78", `telegram:-500:78 model="" history=quick|second`)

	// /session new in topic 78 leaves topic 77's session alone.
	ask(5, 78, "/session new")
	expect(5, "78", "started a new session for telegram:-500:78")
	ask(6, 78, "after")
	expect(6, "78", `telegram:-500:78 model="" history=after`)
	ask(7, 77, "third")
	expect(7, "77", `telegram:-500:77 model="" history=slow|second|third`)

	// An inline override set in topic 77 applies there only.
	ask(8, 77, "```toml\ndefault_model = \"fast\"\n```")
	if text, _ := waitAnswer(t, api, -500, 8); !strings.HasPrefix(text, "Override set") {
		t.Fatalf("override: %q", text)
	}
	ask(9, 78, "which")
	expect(9, "78", `telegram:-500:78 model="" history=after|which`)
	ask(10, 77, "which")
	expect(10, "77", `telegram:-500:77 model="fast" history=slow|second|third|which`)

	// The yes/no question asked in topic 77 is answered there: a "yes"
	// in topic 78 is a question of its own.
	ask(11, 77, "/session clear")
	expect(11, "77", "Clear telegram:-500:77? Reply yes.")
	ask(12, 78, "yes")
	expect(12, "78", `telegram:-500:78 model="" history=after|which|yes`)
	ask(13, 77, "yes")
	expect(13, "77", "cleared telegram:-500:77")
}

// The General topic of a forum (its messages carry no thread) and a
// group without topics, whose replies carry a message_thread_id that is
// not a topic, keep the chat's conversation, telegram:<chat>, so
// sessions from before topics had their own continue.
func TestGeneralTopicAndPlainGroupKeepTheChatConversation(t *testing.T) {
	api := newFake(t)
	start(t, api, runnerFunc(echo), "", func(o *Options) { o.AllowedChats = append(o.AllowedChats, -600) })
	api.push(1, 9, -500, "in General", map[string]any{"chat": forum})
	api.push(2, 9, -600, "a reply in a plain supergroup", map[string]any{"message_thread_id": 1,
		"chat":             map[string]any{"id": -600, "type": "supergroup"},
		"reply_to_message": map[string]any{"message_id": 1, "date": 0, "chat": map[string]any{"id": -600, "type": "supergroup"}}})
	api.push(3, 9, -600, "in a plain group", nil)
	for _, c := range []struct {
		chat  int64
		id    int
		start string
	}{
		{-500, 1, "echo: in General (telegram:-500)"},
		{-600, 2, "echo: a reply in a plain supergroup (telegram:-600)"},
		{-600, 3, "echo: in a plain group (telegram:-600)"},
	} {
		text, thread := waitAnswer(t, api, c.chat, c.id)
		if text != c.start || thread != "" {
			t.Fatalf("answer to %d: %q in topic %q; want %q", c.id, text, thread, c.start)
		}
	}
}
