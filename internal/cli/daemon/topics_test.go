package daemon

import (
	"context"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/llm/llmtest"
	"github.com/askygo/asky/internal/turn/compose"
)

// Two forum topics of one Telegram group keep their own sessions in the
// store: each topic's follow-up reaches the model with its own earlier
// question only, and the General topic keeps the group's session.
func TestTelegramForumTopicsKeepTheirOwnSessions(t *testing.T) {
	api := newBotAPI(t)
	w := newWorld(t, "")
	w.llm.SetDefault(func(r llmtest.Request) llmtest.Response {
		var users []string
		for _, m := range r.Messages() {
			if m["role"] == "user" {
				users = append(users, llmtest.Text(m["content"]))
			}
		}
		return llmtest.Response{Text: "Answered " + r.LastUser() + " after [" + strings.Join(users, " | ") + "]"}
	})
	startTelegram(t, w, api)
	forum := map[string]any{"id": -500, "type": "supergroup", "is_forum": true}
	topic := func(thread int, text string) map[string]any {
		return map[string]any{"text": text, "message_thread_id": thread, "is_topic_message": true, "chat": forum}
	}
	api.push(1, topic(77, "about quokkas"))
	api.push(2, topic(78, "about wombats"))
	api.waitSent(t, w, "Answered about quokkas")
	api.waitSent(t, w, "Answered about wombats")
	api.push(3, topic(77, "and their tails"))
	api.push(4, topic(78, "and their burrows"))
	api.push(5, map[string]any{"text": "in General", "chat": forum})
	if got := api.waitSent(t, w, "Answered and their tails"); !strings.Contains(got, "about quokkas") || strings.Contains(got, "wombats") {
		t.Fatalf("topic 77's follow-up: %q", got)
	}
	if got := api.waitSent(t, w, "Answered and their burrows"); !strings.Contains(got, "about wombats") || strings.Contains(got, "quokkas") {
		t.Fatalf("topic 78's follow-up: %q", got)
	}
	if got := api.waitSent(t, w, "Answered in General"); strings.Contains(got, "quokkas") || strings.Contains(got, "wombats") {
		t.Fatalf("the General topic: %q", got)
	}
	st, err := w.f.Store()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"telegram:-500:77": 2, "telegram:-500:78": 2, "telegram:-500": 1} {
		s, err := compose.ChatSession(context.Background(), st, name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Name != name || s.Turns != want {
			t.Fatalf("session %q: %q with %d turns, want %d", name, s.Name, s.Turns, want)
		}
	}
}
