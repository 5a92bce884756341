package compose

import (
	"context"
	"sync"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/memory"
	"github.com/askygo/asky/internal/research"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
)

// memoryExtension gives the model the save_memory tool and adds a
// preloader that, before the first model call, handles a global-memory
// trigger prefix and recalls the memories relevant to the question
// (memory.Service.PrepareTurn). Lean mode never gets here. With memory
// disabled the tool is not offered and only the trigger prefix is still
// stripped (with a notice), so it never reaches the model.
func memoryExtension(_ context.Context, x *composer, req *turn.Request, reg *tools.Registry) error {
	mem := &memoryTurn{x: x, cfg: x.cfg.Memory, embedding: x.cfg.Research.Embedding, sessionID: req.SessionID}
	x.mem = mem
	if x.cfg.Memory.Enabled {
		reg.Add(tools.SaveMemory(mem, mem.session))
	}
	req.Preloaders = append(req.Preloaders, turn.PreloaderFunc(mem.preload))
	return nil
}

// memoryTurn is the memory state of one query. The service (and so the
// database) is opened on first use: `asky --tools` never touches it.
type memoryTurn struct {
	x         *composer
	cfg       config.Memory
	embedding config.Embedding

	mu        sync.Mutex
	svc       *memory.Service
	sessionID int64
}

func (m *memoryTurn) service() (*memory.Service, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.svc == nil {
		st, err := m.x.Store()
		if err != nil {
			return nil, err
		}
		emb, err := m.embedder()
		if err != nil {
			return nil, err
		}
		m.svc = memory.New(st, m.cfg, emb)
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
	return svc.Save(m.x.guardGlobal(ctx, sessionID), text, tags, sessionID)
}

// guardGlobal holds the global memories a remote question writes (sid 0:
// a "remember globally:" trigger, a fast path or save_memory without a
// session) for the owner's confirmation: any allowed chat user must not
// write what every later question of the owner is told about "the
// user". Memories of the chat's own session are its to write.
func (x *composer) guardGlobal(ctx context.Context, sid int64) context.Context {
	if !x.q.Remote || sid != 0 {
		return ctx
	}
	from := "a remote request (asky daemon)"
	if x.q.SessionName != "" {
		from = "a remote message from " + x.q.SessionName
	}
	return memory.WithUntrusted(ctx, from)
}

// preload hands the question to memory before the first model call and
// reports what it did through the event sink. Memory never fails a turn.
func (m *memoryTurn) preload(ctx context.Context, req *turn.Request, emit func(turn.Event)) error {
	m.mu.Lock()
	m.sessionID = req.SessionID
	m.mu.Unlock()
	svc, err := m.service()
	if err != nil {
		emit(turn.Event{Kind: turn.EventNotice, Text: "memory skipped: " + err.Error()})
		return nil
	}
	tm, err := svc.PrepareTurn(m.x.guardGlobal(ctx, 0), req.Query, req.SessionID)
	if err != nil {
		return err
	}
	req.Query = tm.Query
	if n := tm.SavedNotice(); n != "" {
		emit(turn.Event{Kind: turn.EventNotice, Text: n})
	}
	for _, n := range tm.Notices {
		emit(turn.Event{Kind: turn.EventNotice, Text: n})
	}
	if tm.Section != "" {
		req.Recalled = tm.Section
		emit(turn.Event{Kind: turn.EventDebug, Text: tm.Describe()})
	}
	return nil
}

// embedder returns the semantic embedder configured for the corpus
// (builtin static, Ollama, OpenAI-compatible) for memory too, or nil for
// lexical recall.
func (m *memoryTurn) embedder() (memory.Embedder, error) {
	var e research.MemoryVectors
	var err error
	if p := m.embedding.Provider; p == "" || p == "builtin" || p == "static" {
		// Offline embedders need no HTTP client or environment.
		e, err = research.ForMemory(m.embedding, nil, nil)
	} else {
		e, err = research.ForMemory(m.embedding, m.x.HTTPClient, m.x.Getenv)
	}
	if err != nil || e == nil {
		return nil, err
	}
	return e, nil
}

// leanMemoryTrigger honours "remember globally: …" in lean mode, where no
// extension runs: the fact is saved and the prefix never reaches the model,
// but nothing is recalled (lean sends no extras).
func leanMemoryTrigger(ctx context.Context, x *composer, req *turn.Request, emit func(turn.Event)) error {
	if _, _, ok := memory.StripTrigger(req.Query, x.cfg.Memory.GlobalTriggers); !ok {
		return nil
	}
	mem := &memoryTurn{x: x, cfg: x.cfg.Memory, embedding: x.cfg.Research.Embedding, sessionID: req.SessionID}
	x.mem = mem
	svc, err := mem.service()
	if err != nil {
		return err
	}
	tm, err := svc.PrepareTurn(x.guardGlobal(ctx, 0), req.Query, req.SessionID)
	if err != nil {
		return err
	}
	req.Query = tm.Query
	notices := tm.Notices
	if n := tm.SavedNotice(); n != "" {
		notices = append([]string{n}, notices...)
	}
	for _, n := range notices {
		emit(turn.Event{Kind: turn.EventNotice, Text: n})
	}
	req.Notices = append(req.Notices, notices...)
	return nil
}
