package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	sess "github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/store"
)

// CreateOptions are the inputs of `session create`.
type CreateOptions struct {
	deps
	Name string
}

// NewCmdCreate builds `session create <name>`.
func NewCmdCreate(f *cmdutil.Factory, runF func(context.Context, *CreateOptions) error) *cobra.Command {
	opts := &CreateOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "create <name>",
		Short: "Create a session and bind this shell to it",
		Long: heredoc.Doc(`
			Create a named session and bind this shell to it: later questions in
			this shell continue it. Names are unique.
		`),
		Example: heredoc.Doc(`
			$ asky session create trip-planning
		`),
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Name = strings.TrimSpace(strings.Join(args, " "))
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return createRun(c.Context(), opts)
		},
	}
	return cmd
}

// ValidateName rejects names that selectors could not reach.
func ValidateName(name string) error {
	switch {
	case name == "":
		return cmdutil.FlagErrorf("a session name is required")
	case sess.IsHistorySelector(name) || isLegacyID(name):
		return cmdutil.UsageError("include a letter, e.g. `trip-"+name+"`", "session name %q would read as an id", name)
	case strings.ContainsFunc(name, sess.IsNameControl):
		return cmdutil.UsageError("use a single line of printable characters, e.g. `lisbon-trip`",
			"session name %q contains a control character or line break", name)
	case len(name) > 100:
		return cmdutil.UsageError("use a short single-line name", "session name is not usable")
	}
	return nil
}

func isLegacyID(s string) bool {
	return len(s) > 1 && (s[0] == 'S' || s[0] == 's') && strings.Trim(s[1:], "0123456789") == ""
}

func createRun(ctx context.Context, opts *CreateOptions) error {
	if err := ValidateName(opts.Name); err != nil {
		return err
	}
	st, err := opts.Store()
	if err != nil {
		return err
	}
	s := &store.Session{Name: opts.Name}
	if err := sess.CreateUnique(ctx, st, s); err != nil {
		return err
	}
	if err := opts.Binding().Set(s.ID); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "Created session %s%s; this shell now continues it (`asky session end` to stop).\n", sess.Label(s), TakenNote(opts.Name, s))
	return nil
}
