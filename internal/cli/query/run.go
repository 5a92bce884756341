package query

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/askygo/asky/internal/cli/cmdutil"
	clisession "github.com/askygo/asky/internal/cli/session"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
	"github.com/askygo/asky/internal/turn/compose"
)

func run(ctx context.Context, opts *Options) error {
	if len(opts.Words) == 0 && opts.IO.IsStdinTTY() && opts.Help != nil && opts.FlagsGiven == 0 {
		return opts.Help()
	}
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	for _, d := range cfg.Diagnostics {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s\n", d)
	}
	if err := applyToolsFlag(opts, cfg); err != nil {
		return err
	}
	takeOutputPath(opts)
	takeTerminalLines(opts)
	if err := checkDelivery(opts, cfg); err != nil {
		return err
	}
	sx, done, err := beginSession(ctx, opts, cfg)
	if done || err != nil {
		return err
	}
	core := newCore(opts)
	if opts.ListTools {
		reg, err := core.Tools(ctx, coreRequest(opts, sx))
		if err != nil {
			return err
		}
		return listTools(opts, reg)
	}

	question := joinWords(opts.Words)
	input, notice, err := readStdin(opts, cfg.Input.StdinMaxBytes)
	if err != nil {
		return err
	}
	if notice != "" {
		fmt.Fprintln(opts.IO.ErrOut, notice)
	}
	switch {
	case question == "" && input == "":
		return cmdutil.UsageError("ask something: asky \"your question\" (see asky --help)", "no question given")
	case question == "":
		question, input = strings.TrimSpace(input), ""
	case input != "":
		input = "Input from stdin:\n```\n" + strings.TrimRight(input, "\n") + "\n```"
	}
	if err := sx.nameFromQuestion(ctx, question); err != nil {
		return err
	}
	if err := sx.continueAsSession(ctx); err != nil {
		return err
	}
	if opts.TerminalLines != "" {
		term, err := terminalContext(ctx, opts, cfg)
		if err != nil {
			return err
		}
		input = strings.TrimPrefix(input+"\n\n"+term, "\n\n")
	}
	q := coreRequest(opts, sx)
	q.Question, q.Input = question, input

	out := newOutput(opts)
	defer out.close()
	// Every retry is one line even without -v: a silent wait looks hung.
	core.OnRetry = func(attempt int, wait time.Duration, err error) {
		out.stderr(llm.RetryNotice(err, attempt, cfg.Limits.MaxRetries, wait))
		if opts.Factory.Verbosity > 0 {
			out.stderr("  " + err.Error())
		}
	}
	if opts.Factory.Verbosity > 1 {
		core.Trace = out.traceWriter()
	}
	if opts.IO.IsStdinTTY() && opts.IO.IsStderrTTY() {
		q.Confirm = func(question string) bool {
			out.pauseStatus()
			return clisession.Confirm(opts.IO.In, opts.IO.ErrOut, question)
		}
	}
	res, err := core.Run(ctx, q, out.event)
	if se := (*turn.SaveError)(nil); errors.As(err, &se) && res != nil {
		// The answer was paid for: show it, then report the failed save.
		if ferr := out.finish(res); ferr != nil {
			return ferr
		}
		return err
	}
	if err != nil {
		out.abort()
		return err
	}
	if err := out.finish(res); err != nil {
		return err
	}
	sx.afterAnswer = func(ctx context.Context) { core.AfterAnswer(ctx, q, res, out.event) }
	return sx.after(ctx, res)
}

// newCore is the orchestration core over the command's factory.
func newCore(opts *Options) *compose.Core {
	f := opts.Factory
	return &compose.Core{Config: opts.Config, Store: opts.Store, HTTPClient: f.HTTPClient, Getenv: f.Getenv,
		Env: f.Env, Now: opts.Now, Warn: func(s string) { fmt.Fprintln(opts.IO.ErrOut, "warning: "+s) }}
}

// coreRequest translates the flags (and the session chosen for this
// shell) into the core's request; the question is set by the caller.
func coreRequest(opts *Options, sx *sessionTurn) compose.Request {
	q := compose.Request{Session: sx.sess, ContinueIDs: sx.contIDs, Model: opts.Model, Lean: opts.Lean,
		MaxTurns: opts.Turns, SystemPrompt: opts.SystemPrompt, ToolOff: opts.ToolOff, ResearchSet: opts.ResearchSet,
		Research: opts.Research, Shortlist: opts.Shortlist, Summarize: opts.Summarize, Remote: opts.Remote,
		ToolsReset: opts.ToolsReset, ElephantMode: opts.ElephantMode, Question: joinWords(opts.Words)}
	if q.Shortlist == "reset" {
		q.Shortlist = ""
	}
	return q
}

// stdinIdle is how long piped stdin may pause, once it has started,
// before asky stops waiting for more (tail -f never ends).
const stdinIdle = time.Second

// stdinWaitNotice is how long piped stdin may stay silent before asky
// says it is waiting for it.
const stdinWaitNotice = 3 * time.Second

// firstByte notes when its reader has given any bytes.
type firstByte struct {
	r   io.Reader
	got atomic.Bool
}

func (f *firstByte) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if n > 0 {
		f.got.Store(true)
	}
	return n, err
}

// readStdin reads piped stdin up to limit bytes, never waiting for an EOF
// that may not come (see iostreams.ReadPiped). Binary input is refused.
func readStdin(opts *Options, limit int) (string, string, error) {
	if opts.IO.IsStdinTTY() || opts.IO.In == nil {
		return "", "", nil
	}
	if limit <= 0 {
		limit = 100 << 10
	}
	idle := stdinIdle
	// Before the first byte ReadPiped waits as long as the producer takes
	// (`make 2>&1 | asky`), which looks like a hang when stdin is a pipe
	// nobody writes to (a script, ssh, a `while read` loop): say so once.
	in := &firstByte{r: opts.IO.In}
	wait := cmp.Or(opts.StdinWait, stdinWaitNotice)
	var mu sync.Mutex // the notice is written before readStdin returns, or never
	read := false
	waiting := time.AfterFunc(wait, func() {
		mu.Lock()
		defer mu.Unlock()
		if !read && !in.got.Load() {
			fmt.Fprintf(opts.IO.ErrOut, "notice: waiting for piped stdin (nothing after %s); to ask without it, add </dev/null\n", wait)
		}
	})
	buf, why, err := iostreams.ReadPiped(in, limit, idle)
	waiting.Stop()
	mu.Lock()
	read = true
	mu.Unlock()
	if err != nil {
		return "", "", fmt.Errorf("read stdin: %w", err)
	}
	notice := ""
	switch why {
	case iostreams.PipedCap:
		buf = buf[:limit]
		for len(buf) > 0 && !utf8.Valid(buf[len(buf)-min(len(buf), 4):]) {
			buf = buf[:len(buf)-1]
		}
		notice = fmt.Sprintf("notice: stdin is longer than %d KB; only the first %d KB were sent (raise [input] stdin_max_bytes to send more)", limit>>10, limit>>10)
	case iostreams.PipedIdle:
		notice = fmt.Sprintf("notice: stdin paused for %s; sent the %s that arrived (pipe a finished file to send all of it)", idle, byteCount(len(buf)))
	}
	if bytes.IndexByte(buf, 0) >= 0 || !utf8.Valid(buf) {
		return "", "", cmdutil.UsageError("pipe text, not binary data (for documents use `asky corpus ingest`)", "stdin looks like binary data")
	}
	return string(buf), notice, nil
}

func byteCount(n int) string {
	if n < 1<<10 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
}

func listTools(opts *Options, reg *tools.Registry) error {
	if opts.JSON {
		type t struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		}
		var list []t
		for _, x := range reg.Tools() {
			list = append(list, t{x.Name, x.Description})
		}
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"tools": nonNil(list)})
	}
	if reg.Len() == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "no tools are enabled")
		return nil
	}
	for _, t := range reg.Tools() {
		fmt.Fprintf(opts.IO.Out, "%-24s %s\n", t.Name, firstLine(t.Description))
	}
	return nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
