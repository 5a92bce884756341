package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/memory/mdmirror"
	"github.com/askygo/asky/internal/store"
)

// ExportOptions are the flags of `memory export`.
type ExportOptions struct {
	deps
	// Target is a directory, or "-" for stdout.
	Target string
}

// NewCmdExport builds `memory export`.
func NewCmdExport(f *cmdutil.Factory, runF func(context.Context, *ExportOptions) error) *cobra.Command {
	opts := &ExportOptions{deps: newDeps(f)}
	cmd := &cobra.Command{
		Use:   "export [DIR|-]",
		Short: "Write every memory as markdown (MEMORY.md)",
		Long: heredoc.Doc(`
			Write every memory, global and per session, as MEMORY.md in DIR (created
			if needed, replaced atomically), or to stdout with - (the default).
			The format is the one of memory edit; memory import reads it back.
		`),
		Example: heredoc.Doc(`
			$ asky memory export > memories.md
			$ asky memory export ~/notes/asky
		`),
		Args: cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Target = "-"
			if len(args) == 1 {
				opts.Target = args[0]
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return exportRun(c.Context(), opts)
		},
	}
	return cmd
}

func exportRun(ctx context.Context, opts *ExportOptions) error {
	st, err := opts.Store()
	if err != nil {
		return err
	}
	all, err := st.ListMemories(ctx, store.MemoryScope{All: true})
	if err != nil {
		return err
	}
	data := mdmirror.Render(all)
	if opts.Target == "-" {
		_, err := opts.IO.Out.Write(data)
		return err
	}
	if err := os.MkdirAll(opts.Target, 0o700); err != nil {
		return err
	}
	path := filepath.Join(opts.Target, mdmirror.MemoryFile)
	if err := mdmirror.WriteAtomic(path, data); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "wrote %d memories to %s\n", len(all), path)
	return nil
}
