package query

import (
	"context"
	"fmt"

	"github.com/askygo/asky/internal/memory"
	"github.com/askygo/asky/internal/turn"
)

// elephant runs elephant mode (-em) once the answer is printed: one
// extraction call, facts saved into the session with save_memory's dedup,
// "saved N memories" on stderr (each fact with -v). It never fails the
// question: the answer is already out.
func (sx *sessionTurn) elephant(ctx context.Context, res *turn.Result) {
	opts := sx.opts
	warn := func(s string) { fmt.Fprintln(opts.IO.ErrOut, "warning: "+s) }
	switch {
	case !opts.ElephantMode || res == nil || res.Answer == "":
		return
	case sx.sess == nil:
		warn("elephant mode (-em) needs a session and was ignored; start one with: asky -ss NAME -em QUESTION")
		return
	case opts.Lean:
		warn("elephant mode (-em) is off in lean mode (-L)")
		return
	case !sx.cfg.Memory.Enabled:
		warn("elephant mode (-em) is off because [memory] enabled = false")
		return
	case sx.client == nil:
		return
	}
	mem := &memoryTurn{opts: opts, cfg: sx.cfg.Memory, embedding: sx.cfg.Research.Embedding}
	svc, err := mem.service()
	if err == nil {
		var got []memory.Extracted
		got, err = svc.Extract(ctx, sx.client, sx.model, joinWords(opts.Words), sx.sess.ID)
		sx.reportExtracted(got)
	}
	if err != nil {
		warn(err.Error())
	}
}

func (sx *sessionTurn) reportExtracted(got []memory.Extracted) {
	opts := sx.opts
	updated := 0
	for _, e := range got {
		what := "new"
		if e.Result.Updated {
			what, updated = "updated", updated+1
		}
		if opts.Factory.Verbosity > 0 {
			fmt.Fprintf(opts.IO.ErrOut, "  memory #%d (%s): %s\n", e.Result.ID, what, e.Text)
		}
	}
	switch n := len(got); {
	case n == 0 && opts.Factory.Verbosity > 0:
		fmt.Fprintln(opts.IO.ErrOut, "elephant mode: nothing new to remember")
	case n == 1:
		fmt.Fprintf(opts.IO.ErrOut, "saved 1 memory%s\n", updatedNote(updated))
	case n > 1:
		fmt.Fprintf(opts.IO.ErrOut, "saved %d memories%s\n", n, updatedNote(updated))
	}
}

func updatedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d updated)", n)
}
