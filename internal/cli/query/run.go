package query

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/llm/provider"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
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
	sx, done, err := beginSession(ctx, opts, cfg)
	if done || err != nil {
		return err
	}
	req := &turn.Request{Lean: opts.Lean, MaxTurns: opts.Turns, SystemPrompt: opts.SystemPrompt}
	if opts.ListTools {
		reg, err := buildTools(ctx, opts, cfg, req)
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
	req.Query, req.Input = question, input
	if !opts.Lean {
		// Tools are composed before the model is resolved so that a bad
		// -off name is a usage error even without a working provider.
		if req.Tools, err = buildTools(ctx, opts, cfg, req); err != nil {
			return err
		}
	} else if err := leanMemoryTrigger(ctx, opts, cfg, req); err != nil {
		return err
	}

	model, err := cfg.ResolveModel(ctx, opts.Model, opts.Factory.Env())
	if err != nil {
		return err
	}
	if model.Detected && opts.Factory.Verbosity > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "using detected model %s (%s at %s)\n", model.ID, model.APIName, model.BaseURL)
	}
	req.Model = model
	out := newOutput(opts)
	defer out.close()
	client, err := provider.New(model, opts.Factory.HTTPClient(), clientOptions(opts, cfg, out))
	if err != nil {
		return err
	}
	req.Client = client
	st, err := opts.Store()
	if err != nil {
		return err
	}
	if err := sx.prepare(ctx, req); err != nil {
		return err
	}
	eng := &turn.Engine{Store: st, Now: opts.Now, DefaultMaxTurns: cfg.General.MaxTurns}
	res, err := eng.Run(ctx, *req, out.event)
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
	return sx.after(ctx, res)
}

// clientOptions maps config and verbosity onto the provider options.
func clientOptions(opts *Options, cfg *config.Config, out *output) provider.Options {
	po := provider.Options{
		Timeout:        time.Duration(cfg.General.RequestTimeout) * time.Second,
		IdleTimeout:    time.Duration(cfg.General.StreamIdleTimeout) * time.Second,
		UserAgent:      cfg.General.LLMUserAgent,
		MaxRetries:     cfg.Limits.MaxRetries,
		InitialBackoff: time.Duration(cfg.Limits.InitialBackoff) * time.Second,
		MaxBackoff:     time.Duration(cfg.Limits.MaxBackoff) * time.Second,
	}
	if opts.Factory.Verbosity > 0 {
		po.OnRetry = func(attempt int, wait time.Duration, err error) {
			out.stderr(fmt.Sprintf("retry %d in %s: %v", attempt, wait.Round(100*time.Millisecond), err))
		}
	}
	if opts.Factory.Verbosity > 1 {
		po.Trace = out.traceWriter()
	}
	return po
}

// stdinIdle is how long piped stdin may pause, once it has started,
// before asky stops waiting for more (tail -f never ends).
const stdinIdle = time.Second

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
	buf, why, err := iostreams.ReadPiped(opts.IO.In, limit, idle)
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
