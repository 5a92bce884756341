package memory

import (
	"context"
	"fmt"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/store"
)

// ListOptions are the flags of `memory list`.
type ListOptions struct {
	deps
	// Bound returns the session this shell is bound to (0 = none); nil
	// means no binding is known.
	Bound func(ctx context.Context) (int64, error)

	Session string
	All     bool
	JSON    bool
}

// NewCmdList builds `memory list`.
func NewCmdList(f *cmdutil.Factory, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{deps: newDeps(f), Bound: func(context.Context) (int64, error) {
		id, _ := session.NewBinding(f.Getenv, f.Getppid()).Get()
		return id, nil
	}}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List memories",
		Long: heredoc.Doc(`
			List the global memories and, when this shell is bound to a session or
			--session selects one, that session's memories (marked with the
			session). --all lists every memory of every session.

			On a terminal the table is aligned and long memories are cut to the
			width; piped, rows are tab-separated and complete.
		`),
		Example: heredoc.Doc(`
			$ asky memory list
			$ asky memory list --session trip
			$ asky memory list --all --json | jq -r '.memories[].text'
		`),
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.All && opts.Session != "" {
				return cmdutil.FlagErrorf("--all and --session cannot be used together")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return listRun(c.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Session, "session", "", "also list the memories of session `selector` (id, S12, name or part of it)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "list the memories of every session too")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print {memories:[{id, text, tags, scope, session_id, …}]}")
	return cmd
}

func listRun(ctx context.Context, opts *ListOptions) error {
	_, st, _, err := opts.open()
	if err != nil {
		return err
	}
	scope := store.MemoryScope{All: opts.All}
	switch {
	case opts.Session != "":
		if scope.SessionID, _, err = resolveSession(ctx, st, opts.Session); err != nil {
			return err
		}
	case !opts.All && opts.Bound != nil:
		if scope.SessionID, err = opts.Bound(ctx); err != nil {
			return err
		}
	}
	ms, err := st.ListMemories(ctx, scope)
	if err != nil {
		return err
	}
	if opts.JSON {
		out := make([]memoryJSON, 0, len(ms))
		for _, m := range ms {
			out = append(out, toJSON(m))
		}
		return cmdutil.WriteJSON(opts.IO.Out, map[string]any{"memories": out})
	}
	if len(ms) == 0 {
		fmt.Fprintln(opts.IO.ErrOut, `no memories yet; save one with: asky memory add "I live in Lisbon"`)
		return nil
	}
	if err := printMemories(opts.IO, ms, nil); err != nil {
		return err
	}
	for _, m := range ms {
		if m.Unconfirmed {
			fmt.Fprintf(opts.IO.ErrOut, "memory %d is unconfirmed: saved by the model after it read %s; keep it with `asky memory confirm %d`\n",
				m.ID, render.SanitizeLine(m.Provenance), m.ID)
		}
	}
	return nil
}
