package xmpp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/askygo/asky/internal/daemon"
)

// Bounds of the questions a room asked while the bot was away.
const (
	// lateWindow is the oldest history a rejoin asks for: a question
	// from yesterday has usually been answered by someone else or
	// become moot, and Prosody keeps only the last 20 messages anyway.
	lateWindow = 24 * time.Hour
	// lateFetch bounds the history messages (chatter included) a rejoin
	// asks for.
	lateFetch = 100
	// lateAnswers is how many missed questions are answered, the most
	// recent; older ones get one line saying they were skipped, not a
	// wall of late answers.
	lateAnswers = 3
	// lateSkew is subtracted from the last-seen time in the request:
	// "seen" is the bot's clock, the history stamps the server's. What
	// it fetches twice is deduplicated by the answered keys.
	lateSkew = 2 * time.Minute
	// lateKeep is how long answered keys are kept: longer than any
	// history a rejoin can fetch.
	lateKeep = lateWindow + time.Hour
	// lateGather is how long a rejoin waits for the history when the
	// room does not end it with its subject (XEP-0045 says it must).
	lateGather = 10 * time.Second
)

// lateQuestion is a room message addressed to the bot that arrived as
// history after a (re)join.
type lateQuestion struct {
	Key  string
	Nick string
	Text string
	At   time.Time
}

// pickLate chooses which missed questions to answer: those within
// lateWindow of now, the lateAnswers most recent, oldest first; the
// others are skipped (returned oldest first too).
func pickLate(qs []lateQuestion, now time.Time) (answer, skipped []lateQuestion) {
	qs = slices.Clone(qs)
	slices.SortStableFunc(qs, func(a, b lateQuestion) int { return a.At.Compare(b.At) })
	for _, q := range qs {
		if now.Sub(q.At) > lateWindow {
			skipped = append(skipped, q)
		} else {
			answer = append(answer, q)
		}
	}
	if n := len(answer) - lateAnswers; n > 0 {
		skipped = append(skipped, answer[:n]...)
		answer = answer[n:]
	}
	return answer, skipped
}

// addressedText is a room message's text for the bot and whether the
// message addresses it, by the rules of a live room message: a leading
// mention ("asky: q", "asky, q", "@asky q") is dropped from the text, a
// mention elsewhere ("… @asky") or the command prefix ("/asky …") is
// kept. Every nick in nicks counts as the bot's.
func addressedText(body, prefix string, nicks ...string) (string, bool) {
	s := strings.TrimSpace(body)
	first, _, _ := strings.Cut(s, " ")
	if strings.EqualFold(first, "/asky") || (prefix != "" && strings.EqualFold(first, prefix)) {
		return s, true
	}
	for _, nick := range nicks {
		if nick == "" {
			continue
		}
		at := strings.HasPrefix(s, "@")
		rest := strings.TrimPrefix(s, "@")
		if len(rest) >= len(nick) && strings.EqualFold(rest[:len(nick)], nick) {
			rest = rest[len(nick):]
			sep := rest == "" || strings.ContainsRune(":,", rune(rest[0])) || (at && strings.ContainsRune(" \n", rune(rest[0])))
			if sep {
				return strings.TrimSpace(strings.TrimLeft(rest, ":, \n")), true
			}
		}
		if mentions(s, "@"+nick) {
			return s, true
		}
	}
	return s, false
}

// mentions reports whether s holds word (case-insensitively) not
// followed by a letter, digit or '_' ("@asky?" yes, "@askyfan" no).
func mentions(s, word string) bool {
	low, w := strings.ToLower(s), strings.ToLower(word)
	for i := 0; ; {
		j := strings.Index(low[i:], w)
		if j < 0 {
			return false
		}
		end := i + j + len(w)
		if end == len(low) || !isNickRune(rune(low[end])) {
			return true
		}
		i = end
	}
}

func isNickRune(r rune) bool {
	return r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
}

// messageKey identifies a room message in the live stream and in the
// history alike: the sender's nick with the client's origin-id or
// message id, or a hash of the body when the client set neither.
func messageKey(m inMessage) string {
	id := m.ID
	if m.OriginID != nil && m.OriginID.ID != "" {
		id = m.OriginID.ID
	}
	if id == "" {
		sum := sha256.Sum256([]byte(m.Body))
		id = "sha256:" + hex.EncodeToString(sum[:12])
	}
	return m.From.Resourcepart() + "|" + id
}

// askedAt says when a question was asked, for a late answer.
func askedAt(at, now time.Time) string {
	at, now = at.UTC(), now.UTC()
	if at.YearDay() == now.YearDay() && at.Year() == now.Year() {
		return at.Format("15:04 UTC")
	}
	return at.Format("Jan 2 15:04 UTC")
}

// lateHeader opens a late answer: who asked what when, quoted, so the
// room sees which question it answers.
func lateHeader(q lateQuestion, now time.Time) string {
	text := q.Text
	if r := []rune(text); len(r) > 300 {
		text = string(r[:300]) + "…"
	}
	quoted := "> " + strings.ReplaceAll(text, "\n", "\n> ")
	return fmt.Sprintf("%s, you asked at %s while I was offline:\n%s\n\n", q.Nick, askedAt(q.At, now), quoted)
}

// skippedNote is the one line that says older missed questions were not
// answered.
func skippedNote(skipped []lateQuestion, answered int, now time.Time) string {
	return fmt.Sprintf("I was offline and skipped %d older %s addressed to me here (from %s on; I answer only the %d most recent): ask again if still needed.",
		len(skipped), plural(len(skipped), "question"), askedAt(skipped[0].At, now), max(answered, lateAnswers))
}

// lateOutput prefixes a late answer with its question.
type lateOutput struct {
	daemon.ChatOutput
	header string
}

func (o lateOutput) Final(ctx context.Context, text string, failed bool) {
	o.ChatOutput.Final(ctx, o.header+text, failed)
}
