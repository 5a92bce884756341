package compose

import (
	"context"
	"errors"

	"github.com/askygo/asky/internal/memory/mdmirror"
	"github.com/askygo/asky/internal/turn"
)

// mirrorMemory brings [memory] markdown_dir up to date after a turn (the
// model's save_memory, a fast path, a trigger prefix may have changed the
// memories). A failure is a notice: the answer stands.
func (c *Core) mirrorMemory(ctx context.Context, remote bool, emit func(turn.Event)) {
	cfg, err := c.Config()
	if err != nil || cfg.Memory.MarkdownDir == "" {
		return
	}
	st, err := c.Store()
	if err != nil {
		return
	}
	source := "cli"
	if remote {
		source = "chat"
	}
	m := &mdmirror.Mirror{Dir: cfg.Memory.MarkdownDir, Now: c.Now}
	if err := m.Sync(context.WithoutCancel(ctx), st, source, false); err != nil {
		text := "memory markdown: " + err.Error()
		var he *mdmirror.HandEditedError
		if errors.As(err, &he) {
			text += "; " + he.Hint()
		}
		emit(turn.Event{Kind: turn.EventNotice, Text: text})
	}
}
