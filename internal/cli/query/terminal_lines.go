package query

import (
	"context"
	"strconv"
	"strings"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/termlines"
)

// takeTerminalLines gives -tl its count. pflag binds an optional value only
// with "=", so `asky -tl 20 why` arrives as -tl plus "20 why": a leading
// number is the count. A value that is not a number (-tl=why) goes back
// into the question, as in the original.
func takeTerminalLines(opts *Options) {
	v := opts.TerminalLines
	if v == "" {
		return
	}
	if v == " " && len(opts.Words) > 0 {
		if _, err := strconv.Atoi(opts.Words[0]); err == nil {
			opts.TerminalLines, opts.Words = opts.Words[0], opts.Words[1:]
		}
		return
	}
	if _, err := strconv.Atoi(strings.TrimSpace(v)); err != nil && strings.TrimSpace(v) != "" {
		opts.Words = append([]string{v}, opts.Words...)
		opts.TerminalLines = " "
	}
}

// terminalContext is the last lines of this terminal, framed to be sent
// with the question (beside it, so history shows the question itself).
func terminalContext(ctx context.Context, opts *Options, cfg *config.Config) (string, error) {
	n := cfg.General.TerminalContextLines
	if v := strings.TrimSpace(opts.TerminalLines); v != "" {
		n, _ = strconv.Atoi(v)
	}
	if n <= 0 {
		return "", cmdutil.FlagErrorf("-tl needs a positive number of lines, got %q", opts.TerminalLines)
	}
	lines, _, err := termlines.Read(ctx, termlines.Env{Getenv: opts.Factory.Getenv}, n)
	if err != nil {
		return "", cmdutil.WithHint(err, "run asky inside tmux, kitty or WezTerm, or paste the output: cmd 2>&1 | asky QUESTION")
	}
	return termlines.Block(lines, n), nil
}
