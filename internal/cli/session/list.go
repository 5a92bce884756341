package session

import (
	"context"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/render"
)

// ListOptions are the inputs of `session list`.
type ListOptions struct {
	deps
	Limit int
	JSON  bool
}

// NewCmdList builds `session list [N]`.
func NewCmdList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{deps: newDeps(f), Limit: 10}
	cmd := &cobra.Command{
		Use:   "list [N]",
		Short: "List sessions, most recently used first",
		Long: heredoc.Doc(`
			List the N most recently used sessions (default 10). The session this
			shell is bound to is marked with *.
		`),
		Example: heredoc.Doc(`
			$ asky session list
			$ asky session list 50 --json | jq '.sessions[].name'
		`),
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				n, err := strconv.Atoi(args[0])
				if err != nil || n < 1 {
					return cmdutil.FlagErrorf("N must be a positive number, got %q", args[0])
				}
				opts.Limit = n
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return listRun(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print sessions as JSON")
	return cmd
}

func listRun(ctx context.Context, opts *ListOptions) error {
	st, err := opts.Store()
	if err != nil {
		return err
	}
	list, err := st.ListSessions(ctx, opts.Limit)
	if err != nil {
		return err
	}
	cur, _ := opts.Binding().Get()
	if opts.JSON {
		out := make([]sessionJSON, 0, len(list))
		for _, s := range list {
			out = append(out, toJSON(s, s.ID == cur))
		}
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"sessions": out})
	}
	if len(list) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, "no sessions yet; start one with `asky session create NAME`")
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tNAME\tTURNS\tMODEL\tLAST USED")
	for _, s := range list {
		mark := " "
		if s.ID == cur {
			mark = "*"
		}
		name := s.Name
		if name == "" {
			name = "(unnamed)"
		}
		fmt.Fprintf(tw, "%s %d\t%s\t%d\t%s\t%s\n", mark, s.ID, render.Sanitize(name), s.Turns, s.Model, s.LastUsedAt.Local().Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}
