package query

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/turn"
)

// output turns engine events into terminal output. stdout only ever gets
// the answer (or JSON); everything else goes to stderr.
type output struct {
	opts    *Options
	mu      sync.Mutex
	tty     bool // stdout is a terminal: stream + render
	status  *render.Status
	stream  *render.Stream
	trace   bool // show tool calls and timings
	verbose bool
	started time.Time
}

func newOutput(opts *Options) *output {
	o := &output{opts: opts, started: time.Now()}
	io := opts.IO
	// TERM=dumb (Emacs shell-mode, IDE consoles) is a terminal that cannot
	// move the cursor: no spinner and no live redraw, the answer prints as
	// it does to a pipe.
	dumb := opts.Factory.Getenv != nil && opts.Factory.Getenv("TERM") == "dumb"
	o.tty = io.IsStdoutTTY() && !opts.JSON && !dumb
	o.verbose = opts.Factory.Verbosity > 0
	o.trace = o.verbose || io.IsStderrTTY()
	if io.IsStderrTTY() && !opts.JSON && !dumb {
		o.status = render.NewStatus(io.ErrOut, io.ColorEnabled())
		o.status.Set("thinking")
	}
	if o.tty {
		o.stream = render.NewStream(io.Out, io.TerminalWidth(), io.TerminalHeight(), opts.Factory.MarkdownStyle())
	}
	return o
}

func (o *output) event(ev turn.Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch ev.Kind {
	case turn.EventModelCall:
		if o.verbose {
			o.errLocked(fmt.Sprintf("· model call %d/%d", ev.Turn, ev.MaxTurns))
		}
		o.setStatus("thinking")
	case turn.EventText:
		if o.stream != nil {
			o.pauseStatus()
			o.stream.Write(ev.Text)
		}
	case turn.EventTextDiscard:
		if o.stream != nil {
			o.stream.Discard()
		}
	case turn.EventStatus:
		if o.verbose && !strings.HasPrefix(ev.Text, "calling ") {
			o.errLocked("· " + render.Sanitize(ev.Text))
		}
		o.setStatus(ev.Text)
	case turn.EventProgress:
		if o.status != nil {
			o.status.Update(ev.Text)
		}
	case turn.EventToolStart:
		label := ev.Tool
		if ev.Summary != "" {
			label += " " + ev.Summary
		}
		if o.trace {
			o.errLocked("→ " + render.Sanitize(label))
		}
		o.setStatus("running " + ev.Tool)
	case turn.EventToolEnd:
		if o.trace {
			if ev.OK {
				o.errLocked(fmt.Sprintf("  ✓ %s %s", ev.Tool, ev.Elapsed.Round(time.Millisecond)))
			} else {
				o.errLocked(fmt.Sprintf("  ✗ %s %s: %s", ev.Tool, ev.Elapsed.Round(time.Millisecond), render.Clip(ev.Err, 160)))
			}
		}
		o.setStatus("thinking")
	case turn.EventNotice:
		o.errLocked("notice: " + render.SanitizeLine(ev.Text))
	case turn.EventDebug:
		if o.verbose {
			o.errLocked("· " + render.SanitizeLine(ev.Text))
		}
	case turn.EventTrace:
		if o.opts.Factory.Verbosity > 1 {
			o.errLocked(ev.Text)
		}
	}
}

func (o *output) setStatus(s string) {
	if o.status != nil {
		o.status.Set(s)
	}
}

func (o *output) pauseStatus() {
	if o.status != nil {
		o.status.Pause()
	}
}

// errLocked writes one line to stderr, clearing the spinner first.
func (o *output) errLocked(line string) {
	if o.status != nil {
		o.status.Clear()
	}
	fmt.Fprintln(o.opts.IO.ErrOut, line)
}

func (o *output) stderr(line string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.errLocked(line)
}

// traceWriter returns a writer for -vv payload traces.
func (o *output) traceWriter() io.Writer { return &lockedWriter{o: o} }

type lockedWriter struct{ o *output }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.o.mu.Lock()
	defer w.o.mu.Unlock()
	if w.o.status != nil {
		w.o.status.Clear()
	}
	return w.o.opts.IO.ErrOut.Write(p)
}

func (o *output) close() {
	if o.status != nil {
		o.status.Close()
		o.status = nil
	}
}

// abort ends a failed turn: whatever streamed stays visible, the tail is
// closed off.
func (o *output) abort() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stream != nil {
		o.stream.Finish()
	}
	o.close()
}

// finish prints the final answer (or JSON) and the trailer on stderr.
func (o *output) finish(res *turn.Result) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.close()
	io := o.opts.IO
	if o.opts.JSON {
		return cmdutil.WriteJSON(io.Out, jsonResult(res))
	}
	if o.stream != nil {
		// What streamed may differ from the cleaned answer (think tags,
		// fallback text); re-stream the final answer if nothing was shown.
		if !o.stream.Printed() {
			o.stream.Discard()
			o.stream.Write(res.Answer)
		}
		o.stream.Finish()
	} else {
		fmt.Fprintln(io.Out, strings.TrimRight(render.Sanitize(res.Answer), "\n"))
	}
	if len(res.Sources) > 0 && o.tty {
		fmt.Fprintln(io.ErrOut)
		fmt.Fprintln(io.ErrOut, "Sources:")
		for i, s := range res.Sources {
			title := s.Title
			if title == "" {
				title = s.URL
			}
			fmt.Fprintf(io.ErrOut, "  [%d] %s — %s\n", i+1, render.SanitizeLine(title), render.SanitizeLine(s.URL))
		}
	}
	if res.Truncated {
		fmt.Fprintln(io.ErrOut, truncatedWarning(res.Model, o.modelParameters(res.Model)))
	}
	for _, u := range res.Unverified {
		if len(res.ToolCalls) > 0 || len(res.Sources) > 0 {
			fmt.Fprintf(io.ErrOut, "warning: the answer cites %s, which asky did not retrieve\n", render.SanitizeLine(u))
		}
	}
	if o.verbose {
		fmt.Fprintf(io.ErrOut, "· %s · %d in / %d out tokens · %d call(s) · %s · history %d\n", res.Model,
			res.Usage.PromptTokens, res.Usage.CompletionTokens, res.Calls, res.Elapsed.Round(time.Millisecond), res.HistoryID)
	}
	return nil
}

// truncatedWarning is the one stderr line for an answer cut at the output
// limit: the cut is easy to miss at the end of a long answer, and the fix
// (a larger limit in the model's parameters) is not obvious from the text.
func truncatedWarning(alias string, params map[string]any) string {
	key := llm.MaxTokensKey(params)
	return fmt.Sprintf("warning: the answer was cut at the model's output limit; set a higher %s in [models.%s] parameters", key, render.SanitizeLine(alias))
}

// modelParameters are the configured parameters of the model alias (nil
// when unknown), to name the limit key the model uses.
func (o *output) modelParameters(alias string) map[string]any {
	if o.opts.Config == nil {
		return nil
	}
	cfg, err := o.opts.Config()
	if err != nil {
		return nil
	}
	return cfg.Models[alias].Parameters
}

type jsonToolCall struct {
	Name      string `json:"name"`
	Arguments any    `json:"arguments"`
	OK        bool   `json:"ok"`
}

type jsonSource struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

// jsonResult is the stable `query --json` contract (DESIGN.md).
func jsonResult(res *turn.Result) map[string]any {
	calls := []jsonToolCall{}
	for _, c := range res.ToolCalls {
		calls = append(calls, jsonToolCall{Name: c.Name, Arguments: c.Arguments, OK: c.OK})
	}
	srcs := []jsonSource{}
	for _, s := range res.Sources {
		srcs = append(srcs, jsonSource{URL: s.URL, Title: s.Title})
	}
	var sid, hid any
	if res.SessionID != 0 {
		sid = res.SessionID
	}
	if res.HistoryID != 0 {
		hid = res.HistoryID // null: the turn could not be saved
	}
	return map[string]any{
		"answer":     res.Answer,
		"model":      res.Model,
		"session_id": sid,
		"history_id": hid,
		"tool_calls": calls,
		"sources":    srcs,
		"usage":      map[string]int{"prompt_tokens": res.Usage.PromptTokens, "completion_tokens": res.Usage.CompletionTokens},
		"elapsed_ms": res.Elapsed.Milliseconds(),
		"truncated":  res.Truncated,
	}
}

// JSONResult is the `asky query --json` object for res, so the daemon's
// own API returns exactly what the CLI prints.
func JSONResult(res *turn.Result) any { return jsonResult(res) }
