package compose

import (
	"context"
	"fmt"

	"github.com/askygo/asky/internal/turn"
)

// AfterAnswer runs what follows a delivered answer and must never delay
// it: elephant mode (-em, or the session's memory_auto_extract) makes one
// extraction call and saves the facts into the session with save_memory's
// dedup. Front ends call it once the answer is out (the CLI after
// printing, the daemon in the background) with the same Request. It never
// fails: what happened is reported through emit ("saved N memories" as a
// notice, each fact at -v).
func (c *Core) AfterAnswer(ctx context.Context, q Request, res *turn.Result, emit func(turn.Event)) {
	if emit == nil {
		emit = func(turn.Event) {}
	}
	if res == nil || res.Answer == "" {
		return
	}
	cfg, err := c.Config()
	if err != nil {
		return
	}
	st, err := c.Store()
	if err != nil {
		return
	}
	if res.SessionID != 0 {
		if s, err := st.GetSession(ctx, res.SessionID); err == nil {
			q.Session = s
			ApplySessionDefaults(&q, s)
		}
	}
	notice := func(s string) { emit(turn.Event{Kind: turn.EventNotice, Text: s}) }
	switch {
	case !q.ElephantMode:
		return
	case q.Session == nil:
		notice("elephant mode (-em) needs a session and was ignored; start one with: asky -ss NAME -em QUESTION")
		return
	case q.Lean:
		notice("elephant mode (-em) is off in lean mode (-L)")
		return
	case !cfg.Memory.Enabled:
		notice("elephant mode (-em) is off because [memory] enabled = false")
		return
	}
	x := &composer{Core: c, cfg: cfg, q: &q}
	model, client, err := x.model(ctx, q.Model)
	if err != nil {
		notice("elephant mode: " + err.Error())
		return
	}
	mem := &memoryTurn{x: x, cfg: cfg.Memory, embedding: cfg.Research.Embedding}
	svc, err := mem.service()
	if err != nil {
		notice("elephant mode: " + err.Error())
		return
	}
	got, err := svc.Extract(ctx, client, model.ID, q.Question, q.Session.ID)
	updated := 0
	for _, e := range got {
		what := "new"
		if e.Result.Updated {
			what, updated = "updated", updated+1
		}
		emit(turn.Event{Kind: turn.EventDebug, Text: fmt.Sprintf("memory #%d (%s): %s", e.Result.ID, what, e.Text)})
	}
	switch n := len(got); {
	case n == 0 && err == nil:
		emit(turn.Event{Kind: turn.EventDebug, Text: "elephant mode: nothing new to remember"})
	case n == 1:
		notice("saved 1 memory" + updatedNote(updated))
	case n > 1:
		notice(fmt.Sprintf("saved %d memories%s", n, updatedNote(updated)))
	}
	if err != nil {
		notice("elephant mode: " + err.Error())
	}
}

func updatedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d updated)", n)
}
