package daemon

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/askygo/asky/internal/store"
)

// DefaultConfirmTTL is how long a chat's yes/no question stays open: a
// "yes" sent much later is more likely about something else.
const DefaultConfirmTTL = 10 * time.Minute

// Confirmation is a yes/no question a chat asked its user: a voice
// transcript to ask, or a `/session clear` to do. A chat has at most one;
// a newer one replaces it, and any message that is not a yes or a no
// drops it (the user moved on). It is kept in the Chat's State, so a
// yes sent after a daemon restart is still taken as the answer.
type Confirmation struct {
	// What names the question in replies ("the transcript", "the clear").
	What string
	// Question, when set, is asked in the conversation on yes (a voice
	// transcript); it survives a daemon restart.
	Question string
	// Yes, for anything else, does the thing and answers out (exactly
	// one Final). It lives in the daemon's memory: a yes after a restart
	// is told that nothing was done.
	Yes func(ctx context.Context, out ChatOutput)
	// No is the reply to a no.
	No string
}

// expiredNotice is how long past its time limit a question is kept, so
// a late yes is told it expired rather than asked as a question; older
// ones are pruned.
const expiredNotice = 24 * time.Hour

// confirmTTL is the open time of a yes/no question.
func (c *Chat) confirmTTL() time.Duration {
	if c.ConfirmTTL > 0 {
		return c.ConfirmTTL
	}
	return DefaultConfirmTTL
}

func (c *Chat) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// state is where the chat's questions and overrides are kept.
func (c *Chat) state() ChatState {
	if c.State != nil {
		return c.State
	}
	return &c.mem
}

// setPending makes q the conversation's open question; it reports
// whether it replaced another one still open.
func (c *Chat) setPending(ctx context.Context, conversation string, q Confirmation) (replaced bool, err error) {
	st, now := c.state(), c.now()
	if err := st.PruneConfirms(ctx, now.Add(-c.confirmTTL()-expiredNotice)); err != nil {
		return false, err
	}
	old, had, err := st.PeekConfirm(ctx, conversation)
	if err != nil {
		return false, err
	}
	if err := st.SaveConfirm(ctx, conversation, store.ChatConfirm{What: q.What, Question: q.Question, No: q.No, Created: now}); err != nil {
		return false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.actions == nil {
		c.actions = map[string]pendingAction{}
	}
	if q.Yes != nil {
		c.actions[conversation] = pendingAction{created: now, yes: q.Yes}
	} else {
		delete(c.actions, conversation)
	}
	return had && c.open(old), nil
}

// pendingAction is the in-memory Yes of the open question asked at
// created.
type pendingAction struct {
	created time.Time
	yes     func(ctx context.Context, out ChatOutput)
}

// open reports whether q may still be answered.
func (c *Chat) open(q store.ChatConfirm) bool {
	return c.now().Before(q.Created.Add(c.confirmTTL()))
}

// AwaitsAnswer reports whether text answers an open yes/no question of
// the conversation (a transport then leaves out reply context, which
// would hide the "yes").
func (c *Chat) AwaitsAnswer(ctx context.Context, conversation, text string) bool {
	if _, yn := YesNo(text); !yn {
		return false
	}
	_, ok, err := c.state().PeekConfirm(ctx, conversation)
	return ok && err == nil
}

// answerPending handles text as the answer to the conversation's open
// question; false means text is a new message (and the question, if any,
// is dropped).
func (c *Chat) answerPending(ctx context.Context, conversation, text string, out ChatOutput) bool {
	if _, open, err := c.state().PeekConfirm(ctx, conversation); err == nil && !open {
		return false // the common case reads only: no write lock per message
	}
	p, ok, err := c.state().TakeConfirm(ctx, conversation)
	c.mu.Lock()
	action, hasAction := c.actions[conversation]
	delete(c.actions, conversation)
	c.mu.Unlock()
	yes, isAnswer := YesNo(text)
	switch {
	case !isAnswer:
		return false
	case err != nil:
		out.Final(ctx, "Error: could not read the open question: "+err.Error(), true)
	case !ok:
		return false
	case !c.open(p):
		out.Final(ctx, fmt.Sprintf("That question expired (after %s without an answer), so nothing was done about %s.", minutes(c.confirmTTL()), p.What), true)
	case !yes:
		out.Final(ctx, p.No, false)
	case p.Question != "":
		c.askText(ctx, conversation, p.Question, out)
	case hasAction && action.created.Equal(p.Created):
		action.yes(ctx, out)
	default:
		out.Final(ctx, fmt.Sprintf("The daemon restarted since that question, so nothing was done about %s; send the command again.", p.What), true)
	}
	return true
}

func minutes(d time.Duration) string {
	if d < time.Minute {
		return d.Round(time.Second).String()
	}
	m := int(d.Round(time.Minute) / time.Minute)
	if m == 1 {
		return "1 minute"
	}
	return fmt.Sprintf("%d minutes", m)
}

// Words taken as a yes or a no to a chat's question: the short answers
// people type or dictate, in English and a few other languages, and the
// emoji phone keyboards offer.
var (
	yesWords = []string{"yes", "y", "yeah", "yea", "yep", "yup", "ya", "sure", "ok", "okay", "go", "go ahead",
		"do it", "ask it", "run it", "send it", "correct", "right", "yes please", "please do", "affirmative",
		"ja", "jawohl", "oui", "si", "sí", "sim", "da", "tak", "evet", "hai", "はい", "是", "👍", "✅", "✔", "✔️", "👌"}
	noWords = []string{"no", "n", "nope", "nah", "no thanks", "no thank you", "cancel", "stop", "skip", "drop it",
		"never mind", "nevermind", "don't", "dont", "wrong", "negative", "nein", "non", "nee", "nie", "nej", "nei",
		"hayır", "いいえ", "不", "👎", "❌", "✖", "✖️"}
)

// YesNo reads a message as the answer to a yes/no question: yes, no, or
// not an answer (ok false). The whole message must be the answer; case,
// surrounding spaces and closing punctuation do not matter ("Yes!",
// "no.", "Go ahead").
func YesNo(text string) (yes, ok bool) {
	t := strings.ToLower(strings.TrimSpace(text))
	t = strings.TrimRight(t, " .!,;")
	t = strings.Join(strings.Fields(t), " ")
	for _, w := range yesWords {
		if t == w {
			return true, true
		}
	}
	for _, w := range noWords {
		if t == w {
			return false, true
		}
	}
	return false, false
}
