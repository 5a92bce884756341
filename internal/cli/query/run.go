package query

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/askygo/asky/internal/cli/cmdutil"
	clisession "github.com/askygo/asky/internal/cli/session"
	"github.com/askygo/asky/internal/tools"
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
	if opts.TerminalLines != "" {
		if question, err = withTerminalLines(ctx, opts, cfg, question); err != nil {
			return err
		}
	}
	q := coreRequest(opts, sx)
	q.Question, q.Input = question, input

	out := newOutput(opts)
	defer out.close()
	if opts.Factory.Verbosity > 0 {
		core.OnRetry = func(attempt int, wait time.Duration, err error) {
			out.stderr(fmt.Sprintf("retry %d in %s: %v", attempt, wait.Round(100*time.Millisecond), err))
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

// readStdin reads piped stdin up to limit bytes. Binary input is refused.
func readStdin(opts *Options, limit int) (string, string, error) {
	if opts.IO.IsStdinTTY() || opts.IO.In == nil {
		return "", "", nil
	}
	if limit <= 0 {
		limit = 100 << 10
	}
	buf, err := io.ReadAll(io.LimitReader(opts.IO.In, int64(limit)+1))
	if err != nil {
		return "", "", fmt.Errorf("read stdin: %w", err)
	}
	notice := ""
	if len(buf) > limit {
		buf = buf[:limit]
		for len(buf) > 0 && !utf8.Valid(buf[len(buf)-min(len(buf), 4):]) {
			buf = buf[:len(buf)-1]
		}
		notice = fmt.Sprintf("notice: stdin is longer than %d KB; only the first %d KB were sent (raise [input] stdin_max_bytes to send more)", limit>>10, limit>>10)
		// Drain the rest so a writer on the other side of the pipe is not
		// left blocked.
		_, _ = io.Copy(io.Discard, opts.IO.In)
	}
	if bytes.IndexByte(buf, 0) >= 0 || !utf8.Valid(buf) {
		return "", "", cmdutil.UsageError("pipe text, not binary data (for documents use `asky corpus ingest`)", "stdin looks like binary data")
	}
	return string(buf), notice, nil
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
