package query

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/memory"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
)

// memoryExtension gives the model the save_memory tool and adds a
// preloader that, before the first model call, handles a global-memory
// trigger prefix and recalls the memories relevant to the question. Lean
// mode never gets here. With memory disabled only the trigger prefix is
// still stripped (with a warning), so it never reaches the model.
func memoryExtension(_ context.Context, opts *Options, cfg *config.Config, req *turn.Request, reg *tools.Registry) error {
	mem := &memoryTurn{opts: opts, cfg: cfg.Memory, sessionID: req.SessionID}
	if cfg.Memory.Enabled {
		reg.Add(tools.SaveMemory(mem, mem.session))
	}
	req.Preloaders = append(req.Preloaders, turn.PreloaderFunc(mem.preload))
	return nil
}

// memoryTurn is the memory state of one query. The service (and so the
// database) is opened on first use: `asky --tools` never touches it.
type memoryTurn struct {
	opts *Options
	cfg  config.Memory

	mu        sync.Mutex
	svc       *memory.Service
	sessionID int64
}

func (m *memoryTurn) service() (*memory.Service, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.svc == nil {
		st, err := m.opts.Store()
		if err != nil {
			return nil, err
		}
		m.svc = memory.New(st, m.cfg, nil)
	}
	return m.svc, nil
}

// session is the turn's session as the engine sees it: preloaders run on
// the engine's copy of the request, where the session is final.
func (m *memoryTurn) session() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sessionID
}

// Save implements tools.MemorySaver.
func (m *memoryTurn) Save(ctx context.Context, text string, tags []string, sessionID int64) (memory.SaveResult, error) {
	svc, err := m.service()
	if err != nil {
		return memory.SaveResult{}, err
	}
	return svc.Save(ctx, text, tags, sessionID)
}

// preload strips a trigger prefix (saving its statements as a global
// memory) and adds recalled memories to the system prompt. Memory never
// fails a turn: problems become notices and the answer goes ahead.
func (m *memoryTurn) preload(ctx context.Context, req *turn.Request, emit func(turn.Event)) error {
	m.mu.Lock()
	m.sessionID = req.SessionID
	m.mu.Unlock()
	if rest, trigger, ok := memory.StripTrigger(req.Query, m.cfg.GlobalTriggers); ok {
		if rest == "" {
			emit(turn.Event{Kind: turn.EventNotice, Text: fmt.Sprintf("nothing to remember after %q", trigger)})
		} else {
			req.Query = rest
			m.saveGlobal(ctx, rest, emit)
		}
	}
	if !m.cfg.Enabled {
		return nil
	}
	svc, err := m.service()
	if err != nil {
		emit(turn.Event{Kind: turn.EventNotice, Text: "memory recall skipped: " + err.Error()})
		return nil
	}
	matches, err := svc.Recall(ctx, req.Query, req.SessionID)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		emit(turn.Event{Kind: turn.EventNotice, Text: "memory recall skipped: " + err.Error()})
		return nil
	}
	if len(matches) == 0 {
		return nil
	}
	req.SystemExtra = append(req.SystemExtra, memory.Format(matches))
	used := make([]string, len(matches))
	for i, mt := range matches {
		used[i] = fmt.Sprintf("#%d %q (%.2f)", mt.Memory.ID, memory.OneLine(mt.Memory.Text, 60), mt.Score)
	}
	noun := "memories"
	if len(matches) == 1 {
		noun = "memory"
	}
	emit(turn.Event{Kind: turn.EventDebug, Text: fmt.Sprintf("recalled %d %s: %s", len(matches), noun, strings.Join(used, ", "))})
	return nil
}

// saveGlobal saves the statements of a triggered query as a global memory.
func (m *memoryTurn) saveGlobal(ctx context.Context, rest string, emit func(turn.Event)) {
	if !m.cfg.Enabled {
		emit(turn.Event{Kind: turn.EventNotice, Text: "memory is disabled ([memory] enabled = false); nothing was remembered"})
		return
	}
	fact := memory.TriggerFact(rest)
	if fact == "" {
		emit(turn.Event{Kind: turn.EventNotice, Text: "nothing to remember: the text after the trigger is only questions"})
		return
	}
	res, err := m.Save(ctx, fact, nil, 0)
	if err != nil {
		emit(turn.Event{Kind: turn.EventNotice, Text: "could not remember that: " + err.Error()})
		return
	}
	verb := "remembered"
	if res.Updated {
		verb = "updated"
	}
	emit(turn.Event{Kind: turn.EventNotice, Text: fmt.Sprintf("%s globally (memory %d): %s", verb, res.ID, memory.OneLine(fact, 80))})
}
