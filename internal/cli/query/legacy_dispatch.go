package query

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/cli/history"
	clisession "github.com/askygo/asky/internal/cli/session"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/userprompt"
)

// legacyDispatch handles the original's action flags that stand for a
// grouped verb (-H, -pa, -sh, -ps, -se, -sfm, --reply). done reports that
// the invocation was fully handled; -se, -sfm and --reply go on to ask when
// a question follows.
func legacyDispatch(ctx context.Context, opts *Options) (done bool, err error) {
	f := opts.Factory
	switch {
	case opts.History != "":
		n, err := takeListCount("-H", opts.History, opts.Words)
		if err != nil {
			return true, err
		}
		return true, runVerb(ctx, history.NewCmdHistory(f), jsonArgs(opts, "list", n)...)
	case opts.PrintAnswer != "":
		return true, runVerb(ctx, history.NewCmdHistory(f), jsonArgs(opts, "show", opts.PrintAnswer)...)
	case opts.SessionHistory != "":
		n, err := takeListCount("-sh", opts.SessionHistory, opts.Words)
		if err != nil {
			return true, err
		}
		return true, runVerb(ctx, clisession.NewCmdSession(f), jsonArgs(opts, "list", n)...)
	case opts.PrintSession != "":
		return true, runVerb(ctx, clisession.NewCmdSession(f), jsonArgs(opts, "show", opts.PrintSession)...)
	case opts.SessionEnd:
		if err := clisession.EndRun(ctx, clisession.NewEndOptions(f)); err != nil {
			return true, err
		}
		return len(opts.Words) == 0, nil
	case opts.FromMessage != "" || opts.Reply:
		ref := opts.FromMessage
		if opts.Reply {
			ref = "last"
		}
		if err := clisession.FromMessageRun(ctx, clisession.NewFromMessageOptions(f, ref)); err != nil {
			return true, err
		}
		return len(opts.Words) == 0, nil
	}
	return false, nil
}

// takeListCount gives -H and -sh their count. pflag binds an optional
// value only with "=", so `asky -H 5` arrives as -H (the default, 10) plus
// the word "5": a number there is the count, as in the original. Other
// words are refused rather than silently dropped: these flags list and
// never ask.
func takeListCount(flag, v string, words []string) (string, error) {
	if len(words) == 0 {
		return v, nil
	}
	if len(words) == 1 {
		if _, err := strconv.Atoi(words[0]); err == nil {
			return words[0], nil
		}
	}
	return "", cmdutil.UsageError(fmt.Sprintf("give only a count (asky %s 5), or ask without %s", flag, flag),
		"%s lists and takes no question, got %q", flag, strings.Join(words, " "))
}

// jsonArgs passes --json on to the verb a listing flag stands for, so
// `asky -H --json` prints what `asky history list --json` does.
func jsonArgs(opts *Options, args ...string) []string {
	if opts.JSON {
		args = append(args, "--json")
	}
	return args
}

// runVerb runs one verb of a command group as if typed, so the legacy flag
// behaves exactly like the grouped command it stands for.
func runVerb(ctx context.Context, group *cobra.Command, args ...string) error {
	group.SetArgs(args)
	group.SilenceErrors = true
	group.SilenceUsage = true
	_, err := group.ExecuteContextC(ctx)
	return err
}

// expandPreset handles `\name args…` (and `\presets`): the expansion is
// parsed again as query flags and words, so a preset may carry flags such as
// -L or -m. Flags of the expansion override those typed before it.
func expandPreset(opts *Options, cfg *config.Config) (done bool, err error) {
	if len(opts.Words) == 0 || !strings.HasPrefix(opts.Words[0], `\`) {
		return false, nil
	}
	if opts.Words[0] == `\presets` {
		listPresets(opts, cfg)
		return true, nil
	}
	tokens, err := userprompt.ExpandPreset(cfg.CommandPresets, opts.Words)
	var unknown *userprompt.UnknownPresetError
	if errors.As(err, &unknown) {
		return true, cmdutil.UsageError(unknown.Hint(), "%s", unknown.Error())
	}
	if err != nil {
		return true, err
	}
	var parsed *Options
	cmd := NewCmdQuery(opts.Factory, func(_ context.Context, o *Options) error { parsed = o; return nil })
	cmd.SetArgs(tokens)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(opts.IO.ErrOut)
	cmd.SetErr(opts.IO.ErrOut)
	if err := cmd.Execute(); err != nil {
		return true, fmt.Errorf("preset \\%s: %w", strings.TrimPrefix(opts.Words[0], `\`), err)
	}
	if parsed == nil {
		return true, nil // the expansion asked for --help
	}
	// The expansion's optional flag values (-o PATH, -tl N) come as its
	// first words, exactly as typed ones do.
	takeOutputPath(parsed)
	takeTerminalLines(parsed)
	mergeOptions(opts, parsed)
	if err := checkDelivery(opts, cfg); err != nil {
		return true, err
	}
	if parsed.Tools != "" {
		// --tools in a preset takes its words from the expansion.
		parsed.Words = opts.Words
		if err := applyToolsFlag(parsed, cfg); err != nil {
			return true, err
		}
		mergeOptions(opts, parsed)
	}
	return false, nil
}

// mergeOptions copies what a preset set onto opts.
func mergeOptions(opts, p *Options) {
	opts.Words = p.Words
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&opts.Model, p.Model)
	set(&opts.SystemPrompt, p.SystemPrompt)
	set(&opts.Continue, p.Continue)
	set(&opts.Shortlist, p.Shortlist)
	set(&opts.StickySession, p.StickySession)
	set(&opts.ResumeSession, p.ResumeSession)
	set(&opts.TerminalLines, p.TerminalLines)
	set(&opts.Output, p.Output)
	set(&opts.SendMail, p.SendMail)
	set(&opts.Subject, p.Subject)
	set(&opts.PushData, p.PushData)
	if p.ResearchSet {
		opts.Research, opts.ResearchSet = p.Research, true
	}
	if p.Turns > 0 {
		opts.Turns = p.Turns
	}
	opts.ToolOff = append(opts.ToolOff, p.ToolOff...)
	opts.ToolsReset = opts.ToolsReset || p.ToolsReset
	opts.ListTools = opts.ListTools || p.ListTools
	opts.Lean = opts.Lean || p.Lean
	opts.JSON = opts.JSON || p.JSON
	opts.Summarize = opts.Summarize || p.Summarize
	opts.NewSession = opts.NewSession || p.NewSession
	opts.ElephantMode = opts.ElephantMode || p.ElephantMode
	opts.OpenReport = opts.OpenReport || p.OpenReport
	opts.CopyClipboard = opts.CopyClipboard || p.CopyClipboard
}

func listPresets(opts *Options, cfg *config.Config) {
	if len(cfg.CommandPresets) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "no command presets; add them under [command_presets] in config.toml")
		return
	}
	for _, k := range userprompt.Matching(cfg.CommandPresets, "") {
		fmt.Fprintf(opts.IO.Out, "\\%-16s %s\n", k, cfg.CommandPresets[k])
	}
}

// listPrompts prints prompt aliases starting with prefix and returns how
// many it printed.
func listPrompts(opts *Options, cfg *config.Config, prefix string) int {
	keys := userprompt.Matching(cfg.UserPrompts, prefix)
	for _, k := range keys {
		fmt.Fprintf(opts.IO.Out, "/%-16s %s\n", k, render.Clip(cfg.UserPrompts[k], 70))
	}
	return len(keys)
}
