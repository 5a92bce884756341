// Package session implements `asky session`: shell-sticky conversations.
package session

import (
	"fmt"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	sess "github.com/askygo/asky/internal/session"
)

// NewCmdSession builds the session group.
func NewCmdSession(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session <command>",
		Short: "Manage shell-sticky conversation sessions",
		Long: heredoc.Doc(`
			A session keeps a conversation going: while this shell is bound to a
			session, every plain asky question continues it. Other terminals stay
			independent. The binding belongs to the shell (its process id), lives
			in $XDG_RUNTIME_DIR/asky (or the temp dir) and ends with the shell.

			Session selectors: an id (12), S12, an exact name, or a unique part of
			a name.
		`),
		Example: heredoc.Doc(`
			$ asky session create trip-planning
			$ asky "which month is best for Lisbon?"     # continues trip-planning
			$ asky session list
			$ asky session use trip
			$ asky session end
		`),
	}
	cmd.AddCommand(
		NewCmdList(f, nil),
		NewCmdShow(f, nil),
		NewCmdCreate(f, nil),
		NewCmdUse(f, nil),
		NewCmdEnd(f, nil),
		NewCmdDelete(f, nil),
		NewCmdRename(f, nil),
		NewCmdCleanResearch(f, nil),
		NewCmdFromMessage(f, nil),
	)
	cmdutil.StrictGroup(cmd)
	// `asky session` alone is the status page, as in the original: which
	// session this shell continues, then the group's help. Unknown verbs
	// stay usage errors.
	strict := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return strict(c, args)
		}
		d := newDeps(f)
		st, err := d.Store()
		if err != nil {
			return err
		}
		s, err := d.current(c.Context(), st)
		if err != nil {
			return err
		}
		if s != nil {
			fmt.Fprintf(d.IO.ErrOut, "This shell continues session %s (%s).\n\n", sess.Label(s), sess.Turns(s.Turns))
		} else {
			fmt.Fprintln(d.IO.ErrOut, "This shell is not bound to a session.")
			fmt.Fprintln(d.IO.ErrOut)
		}
		c.SetOut(c.ErrOrStderr())
		return c.Help()
	}
	return cmd
}
