package daemon

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// DefaultConfirmTTL is how long a chat's yes/no question stays open: a
// "yes" sent much later is more likely about something else.
const DefaultConfirmTTL = 10 * time.Minute

// Confirmation is a yes/no question a chat asked its user: a voice
// transcript to ask, or a `/session clear` to do. A chat has at most one;
// a newer one replaces it, and any message that is not a yes or a no
// drops it (the user moved on).
type Confirmation struct {
	// What names the question in replies ("the transcript", "the clear").
	What string
	// Yes does the thing and answers out (exactly one Final).
	Yes func(ctx context.Context, out ChatOutput)
	// No is the reply to a no.
	No string
}

// pendingConfirmation is a Confirmation with its deadline.
type pendingConfirmation struct {
	Confirmation
	expires time.Time
}

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

// ask registers q as the conversation's open question; it reports whether
// it replaced another one.
func (c *Chat) setPending(conversation string, q Confirmation) (replaced bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		c.pending = map[string]pendingConfirmation{}
	}
	old, had := c.pending[conversation]
	c.pending[conversation] = pendingConfirmation{Confirmation: q, expires: c.now().Add(c.confirmTTL())}
	return had && c.now().Before(old.expires)
}

// takePending removes and returns the conversation's open question.
func (c *Chat) takePending(conversation string) (pendingConfirmation, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.pending[conversation]
	delete(c.pending, conversation)
	return p, ok
}

// AwaitsAnswer reports whether text answers an open yes/no question of
// the conversation (a transport then leaves out reply context, which
// would hide the "yes").
func (c *Chat) AwaitsAnswer(conversation, text string) bool {
	c.mu.Lock()
	_, ok := c.pending[conversation]
	c.mu.Unlock()
	_, yn := YesNo(text)
	return ok && yn
}

// answerPending handles text as the answer to the conversation's open
// question; false means text is a new message (and the question, if any,
// is dropped).
func (c *Chat) answerPending(ctx context.Context, conversation, text string, out ChatOutput) bool {
	p, ok := c.takePending(conversation)
	if !ok {
		return false
	}
	yes, isAnswer := YesNo(text)
	switch {
	case !isAnswer:
		return false
	case !c.now().Before(p.expires):
		out.Final(ctx, fmt.Sprintf("That question expired (after %s without an answer), so nothing was done about %s.", minutes(c.confirmTTL()), p.What), true)
	case yes:
		p.Yes(ctx, out)
	default:
		out.Final(ctx, p.No, false)
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
