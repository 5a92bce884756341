// Package turn is asky's orchestration core: Request -> Result. It composes
// the system prompt, runs preloaders, drives the LLM/tool loop and persists
// the turn before returning. It does no terminal I/O: progress is reported
// through the Event sink, so the CLI and the daemon run turns identically.
package turn

import (
	"context"
	"encoding/json"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/tools"
)

// Store is what the engine needs from persistence.
type Store interface {
	SaveTurn(ctx context.Context, t *store.Turn) (int64, error)
}

// Preloader runs before the first model call. It may add context blocks,
// system sections and sources to the request, or remove tools. Preloaders
// live in their own packages (web seed URLs, corpus, memory) and are
// composed by the caller.
type Preloader interface {
	Preload(ctx context.Context, req *Request, emit func(Event)) error
}

// PreloaderFunc adapts a function to Preloader.
type PreloaderFunc func(ctx context.Context, req *Request, emit func(Event)) error

// Preload calls f.
func (f PreloaderFunc) Preload(ctx context.Context, req *Request, emit func(Event)) error {
	return f(ctx, req, emit)
}

// Request is one user turn.
type Request struct {
	// Query is the user's question as typed; it is what history shows.
	Query string
	// Input is extra text sent in the same user message after the query
	// (piped stdin, already fenced by the caller).
	Input string
	// Model and Client select the model; Client is usually wrapped with
	// retries by the caller.
	Model  *config.ResolvedModel
	Client llm.Client
	// SessionID binds the turn to a session (0 = one-shot).
	SessionID int64
	// History is earlier conversation given as context (session turns,
	// -c continuation), oldest first, without a system message.
	History []llm.Message
	// Tools offered to the model; nil or empty means none.
	Tools *tools.Registry
	// MaxTurns caps tool-using model calls (0 = config default).
	MaxTurns int
	// Lean disables tools, preloaders, system updates and extras.
	Lean bool
	// SystemPrompt replaces the composed system prompt when set.
	SystemPrompt string
	// Prompts are the user's replacements for parts of asky's prompts
	// ([prompts] in the config).
	Prompts PromptOverrides
	// SystemExtra sections are appended to the system prompt (memory,
	// research guidance).
	SystemExtra []string
	// Recalled is the quoted block of recalled memories, sent in the user
	// message as data, never in the system prompt.
	Recalled string
	// Context blocks are appended to the user message after the query
	// ("Preloaded sources gathered before tool calls").
	Context []string
	// ContextInstruction follows the context blocks; empty uses the default.
	ContextInstruction string
	// Sources already retrieved by preloaders.
	Sources []tools.Source
	// Preloaders run in order before the first call (skipped when Lean).
	Preloaders []Preloader
	// Notices are shown to the user (stderr) and returned in the Result.
	Notices []string
	// CompactTool shortens a long URL-keyed tool result (get_url_content,
	// get_full_content) once the context nears the model's budget
	// (asky-behavior.md §5.3 phase 1), returning false when it cannot;
	// nil leaves only dropping and truncation.
	CompactTool func(ctx context.Context, tool, content string) (string, bool)
	// CompactionPct is the share of the model's context at which in-turn
	// compaction starts (0 = 80).
	CompactionPct int
	// AnswerParameters, when non-nil, replace Model.Parameters in the
	// calls that produce the answer (every call of the tool loop and the
	// final answer after the turn limit): a client's per-request sampling
	// override (temperature, max_tokens, stop, …) already laid over the
	// model's own (provider.ApplySampling). Helper calls (page summaries,
	// compaction, evidence and memory extraction) keep Model.Parameters
	// and their own limits.
	AnswerParameters map[string]any
}

// PromptOverrides replace parts of the composed prompts, from the
// original's prompts.toml keys. {CURRENT_DATE} and {MAX_TURNS} in them are
// filled in. The note that tool results are untrusted data and the tool
// guidelines are always kept.
type PromptOverrides struct {
	// SystemPrefix replaces asky's opening (persona, date, answer rules):
	// system_prefix.
	SystemPrefix string
	// SystemSuffix follows the opening: search_suffix and system_suffix.
	SystemSuffix string
	// GracefulExit replaces the instruction for the final answer after
	// the turn limit: graceful_exit.
	GracefulExit string
}

// ToolCallRecord is a tool call made during the turn.
type ToolCallRecord struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	OK        bool            `json:"ok"`
	Error     string          `json:"error,omitempty"`
	Elapsed   time.Duration   `json:"-"`
}

// Result is the outcome of a turn.
type Result struct {
	Answer    string
	Model     string
	SessionID int64
	HistoryID int64
	ToolCalls []ToolCallRecord
	Sources   []tools.Source
	// Unverified lists URLs the answer cites that no tool retrieved.
	Unverified []string
	Usage      llm.Usage
	Elapsed    time.Duration
	Notices    []string
	// Calls is the number of model calls made.
	Calls int
	// Truncated is true when the answer stopped at the output limit
	// (finish reason "length": a client's max_tokens, or the model's).
	Truncated bool
}

// EventKind says what an Event reports.
type EventKind int

// Event kinds.
const (
	// EventStatus: a short status line ("thinking", "reading 3 urls").
	EventStatus EventKind = iota
	// EventModelCall: a model call starts (Turn of MaxTurns).
	EventModelCall
	// EventText: streamed answer text.
	EventText
	// EventReasoning: streamed reasoning text (not part of the answer).
	EventReasoning
	// EventTextDiscard: text streamed since the last model call turned out
	// to accompany tool calls, or was empty-retried; it is not the answer.
	EventTextDiscard
	// EventToolStart / EventToolEnd bracket a tool call.
	EventToolStart
	EventToolEnd
	// EventNotice: a user-facing notice.
	EventNotice
	// EventDebug: verbose diagnostics (-v).
	EventDebug
	// EventProgress: a transient progress update for the status line
	// ("reading 12/340 files"); superseded by the next one, never logged.
	EventProgress
	// EventTrace: the exact material preloaded for the model (-vv).
	EventTrace
	// EventIgnoredParameters: request parameters the answering model's
	// API cannot take, left out of its calls (Text: comma-separated
	// names, sorted). Sent before the first model call.
	EventIgnoredParameters
)

// Event is one progress report. Fields are set according to Kind.
type Event struct {
	Kind     EventKind
	Text     string
	Tool     string
	Summary  string
	OK       bool
	Err      string
	Elapsed  time.Duration
	Turn     int
	MaxTurns int
}
