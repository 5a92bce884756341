package memory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/memory"
	"github.com/askygo/asky/internal/memory/mdmirror"
	"github.com/askygo/asky/internal/store"
)

// markdownOpen is what the markdown verbs need: config, store, the memory
// service, and the mirror when [memory] markdown_dir is set.
type markdownOpen struct {
	cfg    *config.Config
	st     *store.Store
	svc    *memory.Service
	mirror *mdmirror.Mirror
}

func (d deps) openMarkdown() (*markdownOpen, error) {
	cfg, st, svc, err := d.open()
	if err != nil {
		return nil, err
	}
	o := &markdownOpen{cfg: cfg, st: st, svc: svc}
	if cfg.Memory.MarkdownDir != "" {
		o.mirror = &mdmirror.Mirror{Dir: cfg.Memory.MarkdownDir}
	}
	return o, nil
}

// sync rewrites the mirror (if any) after a change, tagged with source.
func (o *markdownOpen) sync(ctx context.Context, source string, force bool) error {
	if o.mirror == nil {
		return nil
	}
	return o.mirror.Sync(ctx, o.st, source, force)
}

// syncMirror is the memory group's post-run step: whatever a verb
// changed lands in [memory] markdown_dir.
func syncMirror(ctx context.Context, d deps) error {
	cfg, err := d.Config()
	if err != nil || cfg.Memory.MarkdownDir == "" {
		return nil
	}
	st, err := d.Store()
	if err != nil {
		return err
	}
	err = (&mdmirror.Mirror{Dir: cfg.Memory.MarkdownDir}).Sync(ctx, st, "cli", false)
	var he *mdmirror.HandEditedError
	if errors.As(err, &he) {
		fmt.Fprintf(d.IO.ErrOut, "notice: %s; %s\n", he.Error(), he.Hint())
		return nil
	}
	return err
}

// parseSource parses a markdown file, or every *.md file of a directory
// (MEMORY.md alone when it is there).
func parseSource(path string, stdin io.Reader) ([]mdmirror.Entry, []mdmirror.LineError, error) {
	if path == "-" {
		e, errs := mdmirror.Parse(stdin, "<stdin>")
		return e, errs, nil
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, cmdutil.Errorf("give a markdown file or a directory (e.g. one `asky memory export DIR` wrote)", "%s: no such file or directory", path)
	}
	if err != nil {
		return nil, nil, err
	}
	files := []string{path}
	if fi.IsDir() {
		if _, err := os.Stat(filepath.Join(path, mdmirror.MemoryFile)); err == nil {
			files = []string{filepath.Join(path, mdmirror.MemoryFile)}
		} else if files, err = filepath.Glob(filepath.Join(path, "*.md")); err != nil || len(files) == 0 {
			return nil, nil, fmt.Errorf("%s has no MEMORY.md and no .md files", path)
		}
	}
	var (
		entries []mdmirror.Entry
		errs    []mdmirror.LineError
	)
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			return nil, nil, err
		}
		e, le := mdmirror.Parse(r, f)
		r.Close()
		entries, errs = append(entries, e...), append(errs, le...)
	}
	return entries, errs, nil
}

// report prints skipped lines and the summary.
func report(ios io.Writer, verb string, sum mdmirror.Summary) {
	for _, e := range sum.Errors {
		fmt.Fprintf(ios, "warning: %s\n", e.Error())
	}
	for _, id := range sum.StillUnconfirmed {
		fmt.Fprintf(ios, "note: memory %d stays unconfirmed (markdown never confirms a memory); keep it with `asky memory confirm %d`\n", id, id)
	}
	fmt.Fprintf(ios, "%s: %s\n", verb, sum)
}
