package xmpp

import (
	"fmt"
	"time"

	"mellium.im/xmpp/stanza"
)

// historyBatch gathers a room's history after a join until the room's
// subject ends it (XEP-0045 §7.2.15: history, then the subject).
type historyBatch struct {
	questions []lateQuestion
	newest    time.Time
	timer     *time.Timer
}

// historySince is what a join asks the room for: the history since the
// bot last saw it (less lateSkew, at most lateWindow back). A room never
// seen asks for none and counts as seen from now.
func (t *Transport) historySince(room string) (since time.Time, ok bool) {
	now := t.o.Now()
	seen, ok := t.seen.lastSeen(room)
	if !ok {
		if err := t.seen.saw(room, now); err != nil {
			fmt.Fprintf(t.o.Log, "xmpp: could not save when %s was seen: %v\n", room, err)
		}
		return time.Time{}, false
	}
	since = later(seen.Add(-lateSkew), now.Add(-lateWindow))
	t.mu.Lock()
	if b := t.hist[room]; b != nil {
		b.timer.Stop()
	}
	t.hist[room] = &historyBatch{timer: time.AfterFunc(lateGather, func() { t.historyDone(room, false) })}
	t.mu.Unlock()
	return since.UTC().Truncate(time.Second), true
}

// dropHistory forgets a batch whose join failed.
func (t *Transport) dropHistory(room string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if b := t.hist[room]; b != nil {
		b.timer.Stop()
		delete(t.hist, room)
	}
}

// missed takes a delayed room message: history the bot asked for at its
// join. Only questions addressed to the bot, from other occupants, and
// not answered before are kept for historyDone.
func (t *Transport) missed(room string, m inMessage) {
	at, err := time.Parse(time.RFC3339, m.Delay.Stamp)
	if err != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.hist[room]
	if b == nil {
		return // history the bot did not ask for (a join without a seen time)
	}
	b.newest = later(b.newest, at)
	if m.Body == "" || len(m.OOB) > 0 || !fromOther(m, t.botNicks(room)...) {
		return
	}
	text, ok := addressedText(m.Body, t.o.Config.CommandPrefix, t.botNicks(room)...)
	key := messageKey(m)
	if !ok || text == "" || t.seen.answered(room, key) {
		return
	}
	b.questions = append(b.questions, lateQuestion{Key: key, Nick: m.From.Resourcepart(), Text: text, At: at})
}

// botNicks are the nicks the bot has or may have had in room: the
// current one, the configured one and its taken-nick variants.
func (t *Transport) botNicks(room string) []string {
	nicks := []string{t.rooms.nick(room, t.nick())}
	for n, i := t.nick(), 0; i < maxNickTries; n, i = n+"_", i+1 {
		if n != nicks[0] {
			nicks = append(nicks, n)
		}
	}
	return nicks
}

// historyDone ends room's history: the most recent missed questions are
// answered, each prefixed with what was asked when, and one line says
// how many older ones were skipped. complete is false when the room
// never sent its subject: then only the history's newest stamp counts
// as seen.
func (t *Transport) historyDone(room string, complete bool) {
	t.mu.Lock()
	b := t.hist[room]
	delete(t.hist, room)
	t.mu.Unlock()
	if b == nil {
		return
	}
	b.timer.Stop()
	now := t.o.Now()
	seen := b.newest
	if complete {
		seen = later(seen, now)
	}
	if !seen.IsZero() {
		if err := t.seen.saw(room, seen); err != nil {
			fmt.Fprintf(t.o.Log, "xmpp: could not save when %s was seen: %v\n", room, err)
		}
	}
	if len(b.questions) == 0 {
		return
	}
	answer, skipped := pickLate(b.questions, now)
	keys := map[string]time.Time{}
	for _, q := range b.questions {
		keys[q.Key] = q.At
	}
	// Marked before answering: a crash mid-answer must not answer again
	// at the next start (one lost answer beats a repeated one).
	if err := t.seen.markAnswered(room, keys); err != nil {
		fmt.Fprintf(t.o.Log, "xmpp: could not save the answered questions of %s (they may be answered again after a restart): %v\n", room, err)
	}
	fmt.Fprintf(t.o.Log, "xmpp: %s: %d %s asked while offline; answering %d, skipping %d older\n", room, len(b.questions), plural(len(b.questions), "question"), len(answer), len(skipped))
	rj := mustParse(room)
	conv := "xmpp-room:" + room
	if len(skipped) > 0 {
		note := skippedNote(skipped, len(answer), now)
		out := &output{t: t, to: rj, typ: stanza.GroupChatMessage}
		ctx := t.runCtx()
		t.disp.Go(conv, func() { out.Final(ctx, note, false) })
	}
	for _, q := range answer {
		out := lateOutput{ChatOutput: &output{t: t, to: rj, typ: stanza.GroupChatMessage}, header: lateHeader(q, now)}
		t.dispatch(conv, inMessage{Body: q.Text}, out)
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
