package query

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
	clisession "github.com/askygo/asky/internal/cli/session"
	"github.com/askygo/asky/internal/clipboard"
	"github.com/askygo/asky/internal/config"
	sess "github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/userprompt"
)

// sessionTurn carries what sessions, continuation and output extras decide
// for one question, between the three points of run that need them:
// before anything (beginSession), before the engine (prepare) and after the
// answer is printed (after).
type sessionTurn struct {
	opts    *Options
	cfg     *config.Config
	st      *store.Store
	binding *sess.Binding
	// sess is the session this turn belongs to (nil = one-shot).
	sess *store.Session
	// contIDs are history turns loaded as context by -c.
	contIDs []int64
	// oneOff is set when the user chose a one-off question at the idle
	// prompt: -c then stays one-off too.
	oneOff bool
	// afterAnswer runs the core's post-answer work (elephant mode) once
	// the answer is printed.
	afterAnswer func(context.Context)
}

// beginSession runs first in a query: legacy action flags, presets and
// prompt aliases, -c's selector, the shell's session (binding, -ss, -rs,
// --session, idle prompt) and session defaults. done means the invocation
// was fully handled (a listing, a defaults-only update).
func beginSession(ctx context.Context, opts *Options, cfg *config.Config) (*sessionTurn, bool, error) {
	sx := &sessionTurn{opts: opts, cfg: cfg}
	if done, err := legacyDispatch(ctx, opts); done || err != nil {
		return sx, true, err
	}
	if done, err := expandPreset(opts, cfg); done || err != nil {
		return sx, true, err
	}
	if done, err := sx.expandPrompts(ctx); done || err != nil {
		return sx, true, err
	}
	// -c has "~1" as its no-value default, so `asky -c 42 more` arrives as
	// ~1 plus the words "42 more": a leading selector word is the selector.
	if opts.Continue == "~1" && len(opts.Words) > 0 && sess.IsHistorySelector(opts.Words[0]) {
		opts.Continue, opts.Words = opts.Words[0], opts.Words[1:]
	}
	if opts.Continue != "" && !sess.IsHistorySelector(opts.Continue) {
		// A non-selector value is the start of the question.
		opts.Words = append([]string{opts.Continue}, opts.Words...)
		opts.Continue = "~1"
	}
	if opts.ListTools {
		return sx, false, nil
	}
	st, err := opts.Store()
	if err != nil {
		return sx, true, err
	}
	sx.st = st
	// -c is checked before anything slower (model resolution) so a bad
	// selector is reported as such.
	if opts.Continue != "" {
		ids, err := sess.ResolveTurnIDs(ctx, st, opts.Continue)
		var hse *sess.HistorySelectorError
		if errors.As(err, &hse) {
			return sx, true, cmdutil.UsageError(hse.Hint(), "%s", hse.Error())
		}
		if err != nil {
			return sx, true, cmdutil.WithHint(err, "see `asky history list`")
		}
		sx.contIDs = ids
	}
	sx.binding = sess.NewBinding(opts.Factory.Getenv, opts.Factory.Getppid())
	if err := sx.chooseSession(ctx); err != nil {
		return sx, true, err
	}
	given := explicitDefaults(opts)
	if len(opts.Words) == 0 && (given || opts.StickySession != "" || opts.ResumeSession != "") && !sx.stdinHasData() {
		if !given {
			return sx, true, nil // -ss/-rs without a question only bind
		}
		return sx, true, sx.defaultsOnly(ctx)
	}
	if sx.sess != nil {
		if err := sx.persistDefaults(ctx); err != nil {
			return sx, true, err
		}
		sx.applyTerminalDefaults()
	}
	return sx, false, nil
}

// createBound creates a session, binds this shell to it and says so
// ("Created session …" / "Started session …").
func (sx *sessionTurn) createBound(ctx context.Context, name, verb string) error {
	s := &store.Session{Name: name}
	if err := sess.CreateUnique(ctx, sx.st, s); err != nil {
		return err
	}
	if err := sx.binding.Set(s.ID); err != nil {
		return err
	}
	sx.sess = s
	sx.notice(fmt.Sprintf("%s session %s%s; this shell now continues it.", verb, sess.Label(s), clisession.TakenNote(name, s)))
	return nil
}

// chooseSession decides the session of this turn.
func (sx *sessionTurn) chooseSession(ctx context.Context) error {
	opts := sx.opts
	question := joinWords(opts.Words)
	switch {
	case opts.StickySession != "":
		name := strings.TrimSpace(opts.StickySession)
		if err := clisession.ValidateName(name); err != nil {
			return err
		}
		return sx.createBound(ctx, name, "Created")
	case opts.ResumeSession != "":
		s, err := sess.Resolve(ctx, sx.st, opts.ResumeSession)
		if err != nil {
			return clisession.ResolveError(err)
		}
		if err := sx.binding.Set(s.ID); err != nil {
			return err
		}
		sx.sess = s
		sx.notice(fmt.Sprintf("This shell now continues session %s (%s).", sess.Label(s), sess.Turns(s.Turns)))
		return nil
	case opts.NewSession:
		if question == "" {
			return cmdutil.UsageError(`put the question after --session: asky --session "plan a trip to Lisbon"`, "--session needs a question")
		}
		// Named from the question at once (no model call), so the answer is
		// not delayed; a taken name gets _2, _3….
		return sx.createBound(ctx, sess.AutoName(question), "Started")
	}
	s, notices, err := sess.Current(ctx, sx.binding, sx.st)
	for _, n := range notices {
		sx.notice("notice: " + n)
	}
	if err != nil || s == nil {
		return err
	}
	sx.sess = s
	if question == "" && !explicitDefaults(opts) {
		return nil
	}
	if question != "" && sx.idle() {
		if err := sx.askIdle(ctx); err != nil {
			return err
		}
		return sx.nameFromQuestion(ctx, question)
	}
	if question != "" {
		if err := sx.nameFromQuestion(ctx, question); err != nil {
			return err
		}
		sx.notice(fmt.Sprintf("Resuming session %s", sess.Label(s)))
	}
	return nil
}

func (sx *sessionTurn) notice(s string) { fmt.Fprintln(sx.opts.IO.ErrOut, s) }

// idle reports whether the bound session was last used longer ago than
// [session] idle_timeout_minutes.
func (sx *sessionTurn) idle() bool {
	mins := sx.cfg.Session.IdleTimeoutMinutes
	if mins <= 0 || sx.sess.LastUsedAt.IsZero() {
		return false
	}
	return sx.now().Sub(sx.sess.LastUsedAt) > time.Duration(mins)*time.Minute
}

// askIdle asks, on a terminal only, whether to continue an idle session,
// start a new one or ask one-off. Without a terminal the session continues.
func (sx *sessionTurn) askIdle(ctx context.Context) error {
	s := sx.sess
	if !sx.opts.IO.CanPrompt() || sx.opts.JSON {
		sx.notice(fmt.Sprintf("Resuming session %s", sess.Label(s)))
		return nil
	}
	ago := time.Since(s.LastUsedAt).Round(time.Minute)
	fmt.Fprintf(sx.opts.IO.ErrOut, "Session %s has been idle for %s. [c]ontinue, [n]ew session, [o]ne-off question? [c] ", sess.Label(s), ago)
	line, err := bufio.NewReader(sx.opts.IO.In).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "n", "new":
		if err := sx.createPending(ctx); err != nil {
			return err
		}
		sx.notice(fmt.Sprintf("Started session %d; this shell now continues it.", sx.sess.ID))
	case "o", "one-off", "oneoff":
		sx.sess, sx.oneOff = nil, true
		sx.notice("Asking one-off; this shell stays bound to session " + sess.Label(s) + ".")
	default:
		sx.notice(fmt.Sprintf("Resuming session %s", sess.Label(s)))
	}
	return nil
}

// expandPrompts applies /alias prompts. A lone "/" or "/x" matching no
// prompt lists prompts instead of asking.
func (sx *sessionTurn) expandPrompts(ctx context.Context) (bool, error) {
	opts, cfg := sx.opts, sx.cfg
	q := joinWords(opts.Words)
	if !strings.Contains(q, "/") {
		return false, nil
	}
	home, _ := os.UserHomeDir()
	if h := opts.Factory.Getenv("HOME"); h != "" {
		home = h
	}
	e := &userprompt.Expander{
		Prompts:     cfg.UserPrompts,
		Home:        home,
		MaxFileSize: cfg.Limits.MaxPromptFileSize,
		MaxDepth:    cfg.Limits.QueryExpansionMaxDepth,
		Clipboard: func() (string, error) {
			return clipboard.Paste(ctx, clipboard.Env{Getenv: opts.Factory.Getenv})
		},
	}
	if prefix, lone := e.Lone(q); lone {
		n := listPrompts(opts, cfg, prefix)
		switch {
		case len(cfg.UserPrompts) == 0:
			return true, cmdutil.UsageError("add prompts under [user_prompts] in config.toml (`asky config path` shows where)", "no prompt aliases are configured")
		case prefix != "" && n == 0:
			return true, cmdutil.UsageError("see them with `asky prompts list`", "no prompt named /%s", prefix)
		case prefix != "":
			return true, cmdutil.UsageError("pick one of the prompts above", "no prompt named /%s", prefix)
		}
		return true, nil
	}
	expanded, warnings := e.Expand(q)
	for _, w := range warnings {
		fmt.Fprintln(opts.IO.ErrOut, "warning: "+w)
	}
	if expanded != q {
		opts.Words = []string{expanded}
	}
	return false, nil
}

// stdinHasData peeks at piped stdin without losing what it reads.
func (sx *sessionTurn) stdinHasData() bool {
	io := sx.opts.IO
	if io.IsStdinTTY() || io.In == nil {
		return false
	}
	br := bufio.NewReader(io.In)
	io.In = br
	_, err := br.Peek(1)
	return err == nil
}

// explicitDefaults reports whether any flag that persists on a session was
// given.
func explicitDefaults(o *Options) bool {
	return o.Model != "" || o.Lean || o.Turns > 0 || o.SystemPrompt != "" || len(o.ToolOff) > 0 || o.ToolsReset ||
		o.Shortlist != "" || o.ResearchSet || o.Summarize || o.ElephantMode || o.TerminalLines != ""
}

// persistDefaults stores the session-persisted flags given now.
func (sx *sessionTurn) persistDefaults(ctx context.Context) error {
	o, s := sx.opts, sx.sess
	if !explicitDefaults(o) {
		return nil
	}
	if o.Model != "" {
		if _, ok := sx.cfg.Models[o.Model]; !ok {
			// Leave validation and its error to model resolution; an
			// unknown alias is never stored.
			if _, err := sx.cfg.ResolveModel(ctx, o.Model, o.Factory.Env()); err != nil {
				return err
			}
		}
		s.Defaults.Model, s.Model = o.Model, o.Model
	}
	if o.Lean {
		s.Defaults.Lean = true
	}
	if o.Turns > 0 {
		s.MaxTurns = o.Turns
	}
	if o.SystemPrompt != "" {
		s.Defaults.SystemPrompt = o.SystemPrompt
	}
	if o.ToolsReset {
		s.Defaults.ToolOff = nil
	}
	if len(o.ToolOff) > 0 {
		s.Defaults.ToolOff = append([]string(nil), o.ToolOff...)
	}
	switch o.Shortlist {
	case "on", "off":
		s.ShortlistOverride = o.Shortlist
	case "reset":
		s.ShortlistOverride = ""
	case "":
	default:
		return cmdutil.FlagErrorf("--shortlist takes on, off or reset, got %q", o.Shortlist)
	}
	if o.ResearchSet {
		r := o.Research
		s.Defaults.Research = &r
	}
	if o.Summarize {
		s.Defaults.Summarize = true
	}
	if o.ElephantMode {
		s.MemoryAutoExtract = true
	}
	if o.TerminalLines != "" {
		s.Defaults.TerminalLines = o.TerminalLines
	}
	return sx.st.UpdateSessionSettings(ctx, s)
}

// applyTerminalDefaults fills -tl from the session: reading the terminal
// is the CLI's part. Every other stored default is applied by the core
// (compose.ApplySessionDefaults).
func (sx *sessionTurn) applyTerminalDefaults() {
	if sx.opts.TerminalLines == "" {
		sx.opts.TerminalLines = sx.sess.Defaults.TerminalLines
	}
}

// defaultsOnly handles flags without a question: they are stored on the
// shell's session. Without a session it is the usual "no question" error.
func (sx *sessionTurn) defaultsOnly(ctx context.Context) error {
	if sx.sess == nil && sx.opts.ToolsReset {
		return cmdutil.UsageError("--tools reset clears a session's tools-off list; this shell has no session (see asky session list)", "no session to reset")
	}
	created := sx.sess == nil
	if created {
		// As the original: flags alone start a session for this shell,
		// named from its first real question.
		if err := sx.createPending(ctx); err != nil {
			return err
		}
	}
	if err := sx.persistDefaults(ctx); err != nil {
		return err
	}
	msg := fmt.Sprintf("Session %d updated with query defaults: %s", sx.sess.ID, describeDefaults(sx.opts))
	if created {
		msg += "; this shell now continues it (named from its first question)."
	} else if sx.sess.Name != "" {
		msg += " (" + sx.sess.Name + ")."
	} else {
		msg += "."
	}
	sx.notice(msg)
	return nil
}

func describeDefaults(o *Options) string {
	var parts []string
	add := func(cond bool, s string) {
		if cond {
			parts = append(parts, s)
		}
	}
	add(o.Model != "", "model "+o.Model)
	add(o.Lean, "lean")
	add(o.Turns > 0, fmt.Sprintf("%d turns", o.Turns))
	add(o.SystemPrompt != "", "system prompt")
	add(o.ToolsReset, "tools reset")
	add(len(o.ToolOff) > 0, "tools off: "+strings.Join(o.ToolOff, ","))
	add(o.Shortlist != "", "shortlist "+o.Shortlist)
	add(o.ResearchSet, "research")
	add(o.Summarize, "summaries")
	add(o.ElephantMode, "memory extraction")
	add(o.TerminalLines != "", strings.TrimSpace("terminal lines "+strings.TrimSpace(o.TerminalLines)))
	return strings.Join(parts, ", ")
}
