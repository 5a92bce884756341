package configcmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/spf13/cobra"
	"io"
	"strings"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
)

// warnDiagnostics prints load warnings (unknown keys, loose permissions)
// to stderr, where they never mix with the command's result.
func warnDiagnostics(io *iostreams.IOStreams, cfg *config.Config) {
	for _, d := range cfg.Diagnostics {
		fmt.Fprintf(io.ErrOut, "warning: %s\n", d)
	}
}

// keyErr turns a bad key or value from the command line into a usage
// error (exit 2) with a hint.
func keyErr(err error) error {
	var ke *config.KeyError
	if errors.As(err, &ke) {
		return cmdutil.UsageError(ke.Hint(), "%s", ke.Error())
	}
	return err
}

// reportWrites tells the user which files changed, and when a file had to
// be re-encoded (its comments were lost).
func reportWrites(io *iostreams.IOStreams, written []config.Written) {
	for _, w := range written {
		if w.Reencoded {
			fmt.Fprintf(io.ErrOut, "warning: %s was rewritten from its parsed contents; its comments were not kept\n", w.File)
		}
	}
}

func files(written []config.Written) string {
	var out []string
	for _, w := range written {
		out = append(out, w.File)
	}
	return strings.Join(out, ", ")
}

// prompter asks questions on stderr and reads answers from stdin, one
// line each. It is used only when stdin and stderr are terminals.
type prompter struct {
	ctx context.Context
	in  *bufio.Reader
	out io.Writer
	// ended is set once the input ended (Ctrl-D) before an answer.
	ended bool
}

func newPrompter(ctx context.Context, io *iostreams.IOStreams) *prompter {
	return &prompter{ctx: ctx, in: bufio.NewReader(io.In), out: io.ErrOut}
}

type readResult struct {
	line string
	err  error
}

// readLine reads one answer, giving up when the context ends: the CLI
// catches Ctrl-C as a cancellation, so a blocking read would otherwise
// ignore it until Enter.
func (p *prompter) readLine() (string, error) {
	ch := make(chan readResult, 1)
	go func() {
		line, err := p.in.ReadString('\n')
		ch <- readResult{line, err}
	}()
	select {
	case r := <-ch:
		return r.line, r.err
	case <-p.ctx.Done():
		fmt.Fprintln(p.out)
		return "", p.ctx.Err()
	}
}

// ask prints "label [def]: " and returns the answer, or def when blank.
func (p *prompter) ask(label, def string) (string, error) {
	if def != "" {
		fmt.Fprintf(p.out, "? %s [%s]: ", label, def)
	} else {
		fmt.Fprintf(p.out, "? %s: ", label)
	}
	line, err := p.readLine()
	if p.ctx.Err() != nil {
		return "", p.ctx.Err()
	}
	if err != nil && (line == "" || !errors.Is(err, io.EOF)) {
		p.ended = errors.Is(err, io.EOF)
		fmt.Fprintln(p.out)
		return "", cmdutil.UsageError("answer the questions, or pass the values as flags (see --help)", "input ended before %q was answered", label)
	}
	if line = strings.TrimSpace(line); line == "" {
		return def, nil
	}
	return line, nil
}

// choose offers a numbered list; the answer is a number or free text.
func (p *prompter) choose(label string, options []string, def string) (string, error) {
	for i, o := range options {
		fmt.Fprintf(p.out, "  %2d) %s\n", i+1, o)
	}
	ans, err := p.ask(label+" (number or name)", def)
	if err != nil {
		return "", err
	}
	var n int
	if _, err := fmt.Sscanf(ans, "%d", &n); err == nil && fmt.Sprint(n) == ans && n >= 1 && n <= len(options) {
		return options[n-1], nil
	}
	return ans, nil
}

// confirm asks a yes/no question.
func (p *prompter) confirm(label string, def bool) (bool, error) {
	d := "y/N"
	if def {
		d = "Y/n"
	}
	ans, err := p.ask(label+" ("+d+")", "")
	if err != nil {
		return false, err
	}
	switch strings.ToLower(ans) {
	case "":
		return def, nil
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

func aliasList(cfg *config.Config) string {
	if a := cfg.Aliases(); len(a) > 0 {
		return strings.Join(a, ", ")
	}
	return "(none)"
}

// exactArgs is cobra.ExactArgs returning a usage error (exit 2).
func exactArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return &cmdutil.FlagError{Err: fmt.Errorf("%s needs %d argument(s), got %d", c.CommandPath(), n, len(args)), Hint: "usage: " + c.UseLine()}
		}
		return nil
	}
}
