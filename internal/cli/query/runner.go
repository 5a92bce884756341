package query

import (
	"context"
	"errors"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/llm/provider"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn"
)

// Remote is a question asked through the daemon rather than typed.
type Remote struct {
	// Session names the asky session the turn belongs to; it is created
	// on first use. Empty asks one-shot.
	Session  string
	Question string
	// History is earlier conversation supplied by the client, oldest
	// first; with a Session it follows the session's own turns.
	History []llm.Message
	// Instructions are the client's system instructions, appended to
	// asky's system prompt rather than replacing it.
	Instructions string
	Model        string
	Lean         bool
}

// RunRemote answers q the way `asky query` would with the same config:
// same model resolution, provider options, tool extensions, session
// defaults, compaction and persistence. Only the terminal parts are left
// out (stdin, presets, prompt aliases, -o/-cc, idle prompts): a remote
// client cannot use them. Progress goes to sink; notices to f.IO.ErrOut.
func RunRemote(ctx context.Context, f *cmdutil.Factory, q Remote, sink func(turn.Event)) (*turn.Result, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	opts := &Options{IO: f.IO, Config: f.Config, Store: f.Store, Factory: f, Now: f.Now,
		Words: []string{q.Question}, Model: q.Model, Lean: q.Lean, Remote: true}
	st, err := f.Store()
	if err != nil {
		return nil, err
	}
	sx := &sessionTurn{opts: opts, cfg: cfg, st: st}
	if q.Session != "" {
		if sx.sess, err = remoteSession(ctx, st, q.Session); err != nil {
			return nil, err
		}
		sx.applyDefaults()
	}
	req := &turn.Request{Query: q.Question, Lean: opts.Lean, MaxTurns: opts.Turns, SystemPrompt: opts.SystemPrompt, History: q.History}
	if sx.sess != nil {
		req.SessionID = sx.sess.ID
	}
	if q.Instructions != "" {
		req.SystemExtra = append(req.SystemExtra, "Instructions from the client application:\n"+q.Instructions)
	}
	if !opts.Lean {
		if req.Tools, err = buildTools(ctx, opts, cfg, req); err != nil {
			return nil, err
		}
	}
	model, err := cfg.ResolveModel(ctx, opts.Model, f.Env())
	if err != nil {
		return nil, err
	}
	req.Model = model
	client, err := provider.New(model, f.HTTPClient(), clientOptions(opts, cfg, &output{opts: opts}))
	if err != nil {
		return nil, err
	}
	req.Client = client
	if err := sx.prepare(ctx, req); err != nil {
		return nil, err
	}
	eng := &turn.Engine{Store: st, Now: opts.Now, DefaultMaxTurns: cfg.General.MaxTurns}
	res, err := eng.Run(ctx, *req, sink)
	if err == nil && opts.ElephantMode && sx.sess != nil {
		// The session asked for elephant mode: extract after the answer
		// is returned, never delaying it (notices go to the daemon log).
		go sx.elephant(context.WithoutCancel(ctx), res)
	}
	return res, err
}

// remoteSession finds the session by exact name or creates it.
func remoteSession(ctx context.Context, st *store.Store, name string) (*store.Session, error) {
	s, err := st.SessionByName(ctx, name)
	if err == nil || !errors.Is(err, store.ErrNotFound) {
		return s, err
	}
	s = &store.Session{Name: name}
	if err := st.CreateSession(ctx, s); err != nil {
		// Created meanwhile by another process (the CLI): use that one.
		if found, ferr := st.SessionByName(ctx, name); ferr == nil {
			return found, nil
		}
		return nil, err
	}
	return s, nil
}

// JSONResult is the `asky query --json` object for res, so the daemon's
// own API returns exactly what the CLI prints.
func JSONResult(res *turn.Result) any { return jsonResult(res) }
