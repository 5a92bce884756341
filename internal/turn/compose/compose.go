// Package compose is the front half of asky's orchestration core: it turns
// a Request from any front end (the CLI, every daemon transport) into one
// run of turn.Engine. It resolves the session and its defaults, composes
// the tool registry and the preload stages (memory recall, seed URLs,
// research corpus bootstrap, session context), resolves the model and
// runs the turn. Front ends only translate their input and output: no
// preload step lives in a front end.
//
// It is a sub-package of turn rather than part of it so the engine stays
// free of the web, research and memory packages it composes.
package compose

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/fetch"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/llm/provider"
	"github.com/askygo/asky/internal/research"
	sess "github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/shortlist"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
	"github.com/askygo/asky/internal/usage"
)

// Request is one question as a front end hands it to the core. Zero
// values mean "not given": the session's stored defaults, then config,
// apply.
type Request struct {
	// Question is the user's question; Input is extra text sent after it
	// in the same message (piped stdin, already fenced).
	Question string
	Input    string
	// Session is the session the turn belongs to, chosen by the front end
	// (nil with an empty SessionName = one-shot).
	Session *store.Session
	// SessionName is a daemon conversation (or a job's session name): the
	// session it is bound to, else the one of that exact name, found or
	// created (ChatSession); ignored when Session is set.
	SessionName string
	// ContinueIDs are history turns loaded as context (-c).
	ContinueIDs []int64
	// History is earlier conversation supplied by a client, oldest first;
	// with a session it follows the session's own turns.
	History []llm.Message
	// Instructions are a client's system instructions, appended to asky's
	// system prompt rather than replacing it.
	Instructions string
	// Model is a model alias; empty uses the default.
	Model string
	// SummarizationModel replaces [general] summarization_model for this
	// turn (a chat's override); empty uses the config.
	SummarizationModel string
	Lean               bool
	MaxTurns           int
	SystemPrompt       string
	// ToolOff names tools to disable ("all" disables every tool).
	ToolOff []string
	// ResearchSet turns on research mode over the Research pointer (empty:
	// the first word of the question may be the pointer).
	ResearchSet bool
	Research    string
	// Shortlist is the per-request override: "on", "off" or "" (session
	// override, then config).
	Shortlist string
	// Summarize asks for page summaries and summarized -c context (-s).
	Summarize bool
	// ToolsReset ignores the session's stored tools-off list (--tools
	// reset).
	ToolsReset bool
	// ElephantMode extracts memories after the answer (-em); a session's
	// memory_auto_extract turns it on too. See AfterAnswer.
	ElephantMode bool
	// Remote is set for questions from the daemon: an extension that runs
	// local commands must stay off unless enabled for remote use
	// (reliability.md §3.8).
	Remote bool
	// RemoteRoots are directories a remote question may read below besides
	// [research] local_document_roots: the daemon's chat upload directory,
	// so a chat's linked uploads stay readable when no root is configured.
	RemoteRoots []string
	// Confirm asks the user a yes/no question (a fast-path "forget …"
	// that matches several memories); nil when nobody can answer (no
	// terminal, the daemon).
	Confirm func(question string) bool
	// MaxCostUSD stops the turn once its priced calls cost more (a job
	// run's budget); zero: no limit besides [limits] daily_cost_usd.
	MaxCostUSD float64
	// Sampling overrides the model's parameters for the calls that
	// produce the answer (an HTTP client's temperature, max_tokens, stop,
	// …; see llm.Sampling). What the model's API cannot take is reported
	// as a turn.EventIgnoredParameters event.
	Sampling llm.Sampling
}

// Core runs turns for every front end. The CLI builds one per invocation
// from its factory; the daemon builds one for the process.
type Core struct {
	Config func() (*config.Config, error)
	Store  func() (*store.Store, error)
	// HTTPClient is the plain client for configured endpoints (LLM, search
	// provider, embeddings). URLs chosen by a model never use it.
	HTTPClient func() *http.Client
	Getenv     func(string) string
	// Env is used for model resolution (detection of local servers).
	Env func() config.Env
	Now func() time.Time
	// OnRetry and Trace are passed to the model client: retry notices and
	// the -vv payload trace.
	OnRetry func(attempt int, wait time.Duration, err error)
	Trace   io.Writer
	// Warn receives warnings about the configuration met while composing
	// (a broken [tool.NAME]); nil drops them.
	Warn func(string)
	// EmbedderCooldown remembers a failed embedding provider between
	// turns so shortlist scoring and link ranking use the builtin at once
	// (shortlist.Guard). The daemon sets one in memory for the process;
	// nil is a marker file in the cache dir, which the CLI's one-turn
	// processes share.
	EmbedderCooldown *shortlist.Cooldown
	// Model resolves an alias to a model and its client; nil resolves
	// from config with provider.New. Tests replace it with a fake.
	Model func(ctx context.Context, alias string) (*config.ResolvedModel, llm.Client, error)
}

// UsageError is a problem with the request itself (a bad research
// pointer, an unknown tool name): the CLI exits 2 on it and the daemon
// answers 400.
type UsageError struct {
	Err  error
	Next string
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Hint is the next step for the user.
func (e *UsageError) Hint() string { return e.Next }

// HintError is a failure with a next step that is not the request's fault
// (a config section to fix).
type HintError struct {
	Err  error
	Next string
}

func (e *HintError) Error() string { return e.Err.Error() }
func (e *HintError) Unwrap() error { return e.Err }

// Hint is the next step for the user.
func (e *HintError) Hint() string { return e.Next }

func usageErrorf(hint, format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...), Next: hint}
}

func withHint(err error, hint string) error { return &HintError{Err: err, Next: hint} }

// composer is the state of one request while it is composed.
type composer struct {
	*Core
	cfg *config.Config
	q   *Request
	// listing is set when only the tool list is wanted.
	listing bool
	sum     summaryModel

	// Set by the extensions for the later preload stages.
	pages     *fetch.Fetcher
	searcher  func() (tools.Searcher, error)
	ptr       research.Pointer
	index     *research.Index
	preloaded *[]int64
	// subQueries caches the query expansion of the turn.
	subQueries []string
	expanded   bool
	// shortlisted counts the shortlist's kept candidates (evidence
	// extraction runs only with few of them).
	shortlisted int
	// emit is the request's event sink (nil while only listing tools).
	emit func(turn.Event)
	// budget enforces Request.MaxCostUSD (nil: none).
	budget *runBudget
	// mem is the turn's memory state (set by the memory extension).
	mem *memoryTurn
	// helperShortlist is the plain-query helper's shortlist choice.
	helperShortlist *bool
}

func (x *composer) warn(s string) {
	if x.Warn != nil {
		x.Warn(s)
	}
}

// Run answers q: session and defaults, tools and preload stages, model,
// session context, then the engine, which persists the turn. Progress,
// notices and the streamed answer go to emit (may be nil).
func (c *Core) Run(ctx context.Context, q Request, emit func(turn.Event)) (*turn.Result, error) {
	if emit == nil {
		emit = func(turn.Event) {}
	}
	res, err := c.run(ctx, q, emit)
	c.mirrorMemory(ctx, q.Remote, emit)
	return res, err
}

func (c *Core) run(ctx context.Context, q Request, emit func(turn.Event)) (_ *turn.Result, err error) {
	if err := q.Sampling.Validate(); err != nil {
		return nil, err
	}
	cfg, err := c.Config()
	if err != nil {
		return nil, err
	}
	if q.SummarizationModel != "" {
		own := *cfg // the loaded config is shared: change a copy
		own.General.SummarizationModel = q.SummarizationModel
		cfg = &own
	}
	st, err := c.Store()
	if err != nil {
		return nil, err
	}
	x := &composer{Core: c, cfg: cfg, q: &q, emit: emit}
	if q.Session == nil && q.SessionName != "" {
		if q.Session, err = ChatSession(ctx, st, q.SessionName); err != nil {
			return nil, err
		}
	}
	if res, ok, err := x.fastPath(ctx, st); ok || err != nil {
		return res, err
	}
	if err := usage.CheckBudget(ctx, st, cfg.Limits.DailyCostUSD, c.now()); err != nil {
		return nil, err
	}
	if r := x.recorder(nil); r != nil {
		ctx = llm.WithMeter(ctx, r)
	}
	if q.MaxCostUSD > 0 {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		x.budget = &runBudget{limit: q.MaxCostUSD, cancel: cancel}
		defer func() { x.budget.explain(&err) }()
	}
	if q.Session != nil {
		ApplySessionDefaults(&q, q.Session)
	}
	req := &turn.Request{Query: q.Question, Input: q.Input, Lean: q.Lean, MaxTurns: q.MaxTurns,
		SystemPrompt: q.SystemPrompt, History: q.History, Prompts: promptOverrides(cfg)}
	if q.Session != nil {
		req.SessionID = q.Session.ID
	}
	if q.Instructions != "" {
		req.SystemExtra = append(req.SystemExtra, "Instructions from the client application:\n"+q.Instructions)
	}
	if !q.Lean {
		// Tools are composed before the model is resolved so that a bad
		// tool name is a usage error even without a working provider.
		if req.Tools, err = buildTools(ctx, x, req); err != nil {
			return nil, err
		}
	} else {
		if q.Shortlist == "on" {
			// Lean runs no preloading: say why --shortlist on did nothing
			// this time (it is still kept on a session).
			emit(turn.Event{Kind: turn.EventNotice, Text: "shortlist " + shortlist.Decide(shortlist.PolicyInput{Lean: true, Override: q.Shortlist}).Reason})
		}
		if err := leanMemoryTrigger(ctx, x, req, emit); err != nil {
			return nil, err
		}
	}
	model, client, err := x.model(ctx, q.Model)
	if err != nil {
		return nil, err
	}
	if model.Detected {
		emit(turn.Event{Kind: turn.EventDebug, Text: fmt.Sprintf("using detected model %s (%s at %s)", model.ID, model.APIName, model.BaseURL)})
	}
	req.Model, req.Client = model, client
	if err := answerParameters(req, q.Sampling, emit); err != nil {
		return nil, err
	}
	if q.Session == nil && q.ResearchSet && !q.Lean {
		// As the original (asky-behavior.md §5.1 step 2): research without
		// a session gets its own, so findings of unrelated runs stay apart.
		// Created once the model resolves: a failed run leaves none.
		if err := x.researchSession(ctx, st, req, emit); err != nil {
			return nil, err
		}
	}
	if !q.Lean {
		req.CompactTool = newCompactor(x, req).compact
		req.CompactionPct = cfg.Session.CompactionThreshold
	}
	if err := x.prepare(ctx, st, req, emit); err != nil {
		return nil, err
	}
	eng := &turn.Engine{Store: st, Now: c.Now, DefaultMaxTurns: cfg.General.MaxTurns}
	return eng.Run(ctx, *req, emit)
}

// Tools composes the tool registry q would offer, without a model (for
// `asky --tools`).
func (c *Core) Tools(ctx context.Context, q Request) (*tools.Registry, error) {
	cfg, err := c.Config()
	if err != nil {
		return nil, err
	}
	x := &composer{Core: c, cfg: cfg, q: &q, listing: true}
	return buildTools(ctx, x, &turn.Request{Query: q.Question})
}

// model resolves the alias and builds its client, metered into the usage
// ledger: every model call of a turn (answer, summaries, compaction,
// extraction) goes through a client built here.
func (x *composer) model(ctx context.Context, alias string) (*config.ResolvedModel, llm.Client, error) {
	var (
		m      *config.ResolvedModel
		client llm.Client
		err    error
	)
	if x.Model != nil {
		m, client, err = x.Model(ctx, alias)
	} else if m, err = x.cfg.ResolveModel(ctx, alias, x.Env()); err == nil {
		client, err = provider.New(m, x.HTTPClient(), x.clientOptions())
	}
	if err != nil {
		return nil, nil, err
	}
	return m, x.metered(m, client), nil
}

// metered wraps client so its calls are recorded in the usage ledger
// under the request's session.
func (x *composer) metered(m *config.ResolvedModel, client llm.Client) llm.Client {
	if x.listing {
		return client
	}
	if r := x.recorder(m); r != nil {
		return llm.Metered(client, r)
	}
	return client
}

// recorder is the usage ledger's meter for calls to m (nil m: calls that
// carry their own model name and have no configured price, embeddings).
func (x *composer) recorder(m *config.ResolvedModel) *usage.Recorder {
	st, err := x.Store()
	if err != nil {
		return nil
	}
	return &usage.Recorder{Ledger: st, Model: m,
		Session: func() int64 {
			if x.q.Session != nil {
				return x.q.Session.ID
			}
			return 0
		},
		OnError: func(err error) {
			if x.emit != nil {
				x.emit(turn.Event{Kind: turn.EventNotice, Text: err.Error()})
			}
		},
		Spent: x.budget.spend}
}

// clientOptions maps config onto the provider options. In the config 0
// means "none": no retries, no bound on the total wait.
func (x *composer) clientOptions() provider.Options {
	cfg := x.cfg
	return provider.Options{
		Timeout:        time.Duration(cfg.General.RequestTimeout) * time.Second,
		IdleTimeout:    time.Duration(cfg.General.StreamIdleTimeout) * time.Second,
		UserAgent:      cfg.General.LLMUserAgent,
		MaxRetries:     cmp.Or(cfg.Limits.MaxRetries, -1),
		InitialBackoff: time.Duration(cfg.Limits.InitialBackoff) * time.Second,
		MaxBackoff:     time.Duration(cfg.Limits.MaxBackoff) * time.Second,
		RetryBudget:    cmp.Or(time.Duration(cfg.Limits.RetryBudget)*time.Second, -1),
		OnRetry:        x.OnRetry,
		Trace:          x.Trace,
	}
}

// researchSession creates the session of a research run asked without one
// and binds the turn to it. The pointer is stored with it, so continuing
// the session (-rs NAME) keeps researching the same sources.
func (x *composer) researchSession(ctx context.Context, st *store.Store, req *turn.Request, emit func(turn.Event)) error {
	ptr := x.q.Research
	s := &store.Session{Name: "research-" + sess.AutoName(req.Query), Defaults: store.SessionDefaults{Research: &ptr}}
	if err := sess.CreateUnique(ctx, st, s); err != nil {
		return err
	}
	name := s.Name
	x.q.Session, req.SessionID = s, s.ID
	emit(turn.Event{Kind: turn.EventNotice, Text: fmt.Sprintf("Started research session %s (continue it with asky -rs %s).", name, name)})
	return nil
}

// FindOrCreateSession finds the session by exact name or creates it.
func FindOrCreateSession(ctx context.Context, st *store.Store, name string) (*store.Session, error) {
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

// words splits the question as the shell would have.
func words(q string) []string { return strings.Fields(q) }

// answerParameters lays the request's sampling override over the model's
// parameters for the answer calls, and reports what the model's API
// cannot take.
func answerParameters(req *turn.Request, s llm.Sampling, emit func(turn.Event)) error {
	if s.IsZero() {
		return nil
	}
	params, ignored, err := provider.ApplySampling(req.Model, s)
	if err != nil {
		return err
	}
	req.AnswerParameters = params
	if len(ignored) > 0 {
		emit(turn.Event{Kind: turn.EventIgnoredParameters, Text: strings.Join(ignored, ", ")})
	}
	return nil
}
