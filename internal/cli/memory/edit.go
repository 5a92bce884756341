package memory

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/memory/mdmirror"
	"github.com/askygo/asky/internal/store"
)

// EditOptions are the flags of `memory edit`.
type EditOptions struct {
	deps
	// Editor runs the editor on path (tests script it).
	Editor func(ctx context.Context, path string) error
}

// NewCmdEdit builds `memory edit`.
func NewCmdEdit(f *cmdutil.Factory, runF func(context.Context, *EditOptions) error) *cobra.Command {
	opts := &EditOptions{deps: newDeps(f)}
	opts.Editor = func(ctx context.Context, path string) error { return runEditor(ctx, opts, path) }
	cmd := &cobra.Command{
		Use:   "edit",
		Short: "Edit your memories in $EDITOR as markdown",
		Long: heredoc.Doc(`
			Open every memory as markdown in $VISUAL or $EDITOR, one fact per line:

			  - [global] I live in Lisbon <!-- id:3 -->
			  - [session:12] The trip is in May <!-- id:7 -->

			When the editor exits, the changes are applied: a line without an id
			is a new fact (deduplicated like save_memory), a changed line updates
			that memory (and re-embeds it), a deleted line forgets it. A line that
			cannot be read is reported with file:line and skipped, and then
			nothing is forgotten.

			With [memory] markdown_dir set, the file edited is MEMORY.md there;
			otherwise a temporary file.
		`),
		Example: heredoc.Doc(`
			$ asky memory edit
			$ EDITOR=nano asky memory edit
		`),
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return editRun(c.Context(), opts)
		},
	}
	return cmd
}

func editRun(ctx context.Context, opts *EditOptions) error {
	o, err := opts.openMarkdown()
	if err != nil {
		return err
	}
	var (
		path      string
		removable func(int64) bool
	)
	if o.mirror != nil {
		// Bring MEMORY.md up to date, unless it holds hand edits: then
		// those are what the user edits further.
		if err := o.sync(ctx, "cli", false); err != nil {
			fmt.Fprintf(opts.IO.ErrOut, "notice: %v\n", err)
		}
		path = filepath.Join(o.mirror.Dir, mdmirror.MemoryFile)
		removable = o.mirror.Shown()
	} else {
		dir, err := os.MkdirTemp("", "asky-memory-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		all, err := o.st.ListMemories(ctx, store.MemoryScope{All: true})
		if err != nil {
			return err
		}
		path = filepath.Join(dir, mdmirror.MemoryFile)
		if err := mdmirror.WriteAtomic(path, mdmirror.Render(all)); err != nil {
			return err
		}
	}
	if err := opts.Editor(ctx, path); err != nil {
		return cmdutil.Errorf("set $EDITOR to your editor (e.g. export EDITOR=nano); nothing was changed", "editor: %v", err)
	}
	entries, perrs, err := parseSource(path, nil)
	if err != nil {
		return err
	}
	if len(entries) == 0 && len(perrs) == 0 {
		// An emptied file is an editor that crashed or saved nothing, as
		// git takes an empty commit message: forgetting every memory
		// takes `memory clear`.
		if had, err := o.st.ListMemories(ctx, store.MemoryScope{All: true}); err != nil || len(had) > 0 {
			_ = o.sync(ctx, "edit", true)
			return cmdutil.Errorf("to forget every memory use `asky memory clear`", "memory edit: the file has no facts left; nothing was changed")
		}
	}
	sum, err := mdmirror.Apply(ctx, o.st, o.svc, entries, perrs, mdmirror.Options{File: path, Exact: true, Removable: removable})
	if err != nil {
		return err
	}
	report(opts.IO.ErrOut, "memory edit", sum)
	return o.sync(ctx, "edit", true)
}

// runEditor runs $VISUAL or $EDITOR (vi by default) through the shell, so
// a value with arguments ("code --wait") works.
func runEditor(ctx context.Context, opts *EditOptions, path string) error {
	editor := opts.Getenv("VISUAL")
	if editor == "" {
		editor = opts.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", editor+` "$1"`, "sh", path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = opts.IO.In, opts.IO.ErrOut, opts.IO.ErrOut
	if f, ok := opts.IO.Out.(*os.File); ok && opts.IO.IsStdoutTTY() {
		cmd.Stdout = f
	}
	return cmd.Run()
}
