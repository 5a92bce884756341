package corpus

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/research"
	"github.com/askygo/asky/internal/store"
)

// IngestOptions are the flags of `corpus ingest`.
type IngestOptions struct {
	IO      *iostreams.IOStreams
	Factory *cmdutil.Factory
	Paths   []string
	JSON    bool
	NoDeep  bool
}

// NewCmdIngest builds `corpus ingest`.
func NewCmdIngest(f *cmdutil.Factory, runF func(context.Context, *IngestOptions) error) *cobra.Command {
	opts := &IngestOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "ingest <path|glob>...",
		Short: "Add or update documents",
		Long: heredoc.Doc(`
			Add files, directories (recursively; hidden, vendor and node_modules
			directories are skipped) and globs to the corpus. Formats: txt, md,
			markdown, html, htm, json, csv, pdf, epub, and text files without an
			extension (LICENSE, COPYING).

			Directories are walked the way git sees them: what a .gitignore file
			at or below the directory excludes (build output, caches, generated
			files) is left out; a file you name explicitly is never left out.

			Unchanged files (same content hash) are skipped and changed ones are
			re-chunked, so re-running resumes an interrupted ingest. An unchanged
			file is read again when this asky reads its format better than the
			one that ingested it (counted as "re-read: newer extractor"). Re-ingesting
			a directory also removes the documents whose files were deleted
			from it (and says how many). Each
			document is written in one transaction.

			Text in UTF-8, UTF-16 (with a byte-order mark) or Latin-1 is read.
			Inside a directory, a symlink that leads outside that directory is
			skipped (a cloned repository must not make asky read ~/.ssh); name
			the file explicitly to ingest it anyway.

			Files that cannot be read (corrupt, encrypted, binary, unreadable,
			too large) are skipped with a reason; the rest continue. The exit
			code is 0 when every file was ingested or unchanged, and 1 when some
			failed (the summary lists them). A file that failed before and has
			not changed since counts as "unchanged (failed before)", not as a
			new failure (-v lists them); it is still retried every run.

			After the documents are searchable (keywords and fast semantic
			search), the deep tier ([research.deep], the builtin transformer by
			default) embeds the new chunks, with progress on a terminal. It is
			slower than the ingest; Ctrl-C keeps what is done and ` + "`asky corpus embed`" + `
			(or ingesting again) continues. --no-deep leaves it for later.
		`),
		Example: heredoc.Doc(`
			$ asky corpus ingest ~/papers ./notes
			$ asky corpus ingest 'notes/*.md' README.md LICENSE
			$ asky corpus ingest --no-deep ~/archive && asky corpus embed   # deep tier later
		`),
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return ingestRun(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print per-file results as JSON")
	cmd.Flags().BoolVar(&opts.NoDeep, "no-deep", false, "leave the deep tier's embedding for a later 'asky corpus embed'")
	return cmd
}

func ingestRun(ctx context.Context, opts *IngestOptions) error {
	cfg, _, ix, err := openIndex(opts.Factory)
	if err != nil {
		return err
	}
	in := NewIngester(cfg, ix)
	targets, failed := in.Collect(opts.Paths)
	if len(targets) == 0 && len(failed) == 0 {
		// Every file of a re-ingested directory was deleted: prune only.
		if pruned, err := in.PruneDeleted(ctx, walkedDirs(opts.Paths)); err != nil || len(pruned) > 0 {
			if err == nil {
				fmt.Fprintf(opts.IO.Out, "removed %d %s whose files were deleted\n", len(pruned), plural(len(pruned), "document", "documents"))
			}
			return err
		}
		return cmdutil.Errorf(fmt.Sprintf("supported: %s (and extensionless text files); hidden, vendor and .gitignored files are skipped", strings.Join(research.SupportedExtensions(), " ")),
			"no documents found in %s", strings.Join(opts.Paths, ", "))
	}
	var bar *progressBar
	if opts.IO.IsStderrTTY() && !opts.JSON {
		bar = &progressBar{w: opts.IO.ErrOut}
		in.OnProgress = bar.update
		var total int64
		for _, t := range targets {
			total += t.Size
		}
		bar.draw(0, int(total), 0, ingestCounts(research.Progress{TotalFiles: len(targets), TotalBytes: total}))
		in.OnSnapshot = bar.snapshot()
	}
	start := time.Now()
	stopBeat := func() {}
	if bar != nil {
		stopBeat = bar.heartbeat(start)
	}
	results, err := in.Ingest(ctx, targets)
	stopBeat()
	if bar != nil {
		bar.clear()
	}
	results = append(results, failed...)
	if err != nil && ctx.Err() == nil {
		return err
	}
	var pruned []store.CorpusSource
	if ctx.Err() == nil {
		if err := in.SettleFailures(ctx, results); err != nil {
			return err
		}
		pruned, err = in.PruneDeleted(ctx, walkedDirs(opts.Paths))
		if bar != nil {
			bar.clear() // pruning may have redrawn it rebuilding the vector snapshot
		}
		if err != nil {
			return err
		}
	}
	var ingested, unchanged, reread, chunks int
	var bytes int64
	var fails, before, skips []research.FileResult
	for _, r := range results {
		switch r.Status {
		case research.StatusIngested:
			ingested++
			if r.Reextracted {
				reread++
			}
			chunks += r.Chunks
			bytes += r.Bytes
		case research.StatusUnchanged:
			unchanged++
		case research.StatusFailedBefore:
			unchanged++
			before = append(before, r)
		case research.StatusSkipped:
			skips = append(skips, r)
		default:
			fails = append(fails, r)
		}
	}
	if opts.JSON {
		if err := cmdutil.WriteJSON(opts.IO.Out, map[string]any{"results": results, "ingested": ingested, "reextracted": reread, "unchanged": unchanged,
			"failed_before": len(before), "failed": len(fails), "skipped": len(skips), "removed": len(pruned), "chunks": chunks}); err != nil {
			return err
		}
	} else {
		failedBefore, skipped, rereadNote := "", "", ""
		if reread > 0 {
			rereadNote = fmt.Sprintf(" (%d re-read: newer extractor)", reread)
		}
		if len(before) > 0 {
			failedBefore = fmt.Sprintf(" (%d failed before)", len(before))
		}
		if len(skips) > 0 {
			skipped = fmt.Sprintf(", skipped %d", len(skips))
		}
		fmt.Fprintf(opts.IO.Out, "ingested %d%s, unchanged %d%s, failed %d%s (%d chunks, %.1f MB in %s)\n",
			ingested, rereadNote, unchanged, failedBefore, len(fails), skipped, chunks, float64(bytes)/1e6, time.Since(start).Round(10*time.Millisecond))
		for _, r := range fails {
			fmt.Fprintf(opts.IO.Out, "  failed  %s: %s\n", render.SanitizeLine(r.Path), render.SanitizeLine(r.Reason))
		}
		for _, r := range skips {
			fmt.Fprintf(opts.IO.Out, "  skipped %s: %s\n", render.SanitizeLine(r.Path), render.SanitizeLine(r.Reason))
		}
		if len(pruned) > 0 {
			fmt.Fprintf(opts.IO.Out, "removed %d %s whose files were deleted:\n", len(pruned), plural(len(pruned), "document", "documents"))
			for _, s := range pruned {
				fmt.Fprintf(opts.IO.Out, "  removed %s\n", render.SanitizeLine(s.Path))
			}
		}
		if opts.Factory.Verbosity > 0 {
			for _, r := range before {
				fmt.Fprintf(opts.IO.Out, "  unchanged (failed before)  %s: %s\n", render.SanitizeLine(r.Path), render.SanitizeLine(r.Reason))
			}
		} else if len(before) > 0 && len(fails) == 0 {
			fmt.Fprintf(opts.IO.ErrOut, "note: %d %s; `asky corpus ingest -v …` lists %s\n", len(before),
				plural(len(before), "file that failed before is unchanged", "files that failed before are unchanged"), plural(len(before), "it", "them"))
		}
		if ix.Missing > 0 {
			fmt.Fprintf(opts.IO.ErrOut, "note: %d chunks have no vectors for the current embedder; run `asky corpus reindex`\n", ix.Missing)
		}
	}
	if ctx.Err() != nil {
		return &cmdutil.Error{Code: cmdutil.ExitInterrupted, Err: fmt.Errorf("interrupted after %d files", len(results)), Hint: "run the same command again to resume"}
	}
	if err := continueDeep(ctx, opts, ix); err != nil {
		return err
	}
	if len(fails) > 0 {
		what := "partial success"
		if ingested+unchanged == 0 {
			what = "nothing ingested"
		}
		return &cmdutil.Error{Code: cmdutil.ExitError, Err: fmt.Errorf("%s: %d of %d files failed", what, len(fails), len(results)),
			Hint: "the files listed above were skipped; fix or remove them and run the command again"}
	}
	return nil
}

// continueDeep goes on with the deep tier after the fast ingest, so a
// finished ingest leaves the corpus fully searchable: with a progress bar
// on a terminal, with a one-line summary elsewhere (Ctrl-C keeps what is
// done). --no-deep only says what is left for `corpus embed`.
func continueDeep(ctx context.Context, opts *IngestOptions, ix *research.Index) error {
	if ix.Deep == nil {
		return nil
	}
	if !opts.NoDeep {
		n, took, err := fillDeep(ctx, opts.IO, ix, opts.IO.IsStderrTTY() && !opts.JSON)
		if err == nil && n > 0 {
			fmt.Fprintf(opts.IO.ErrOut, "deep tier (%s): embedded %d chunks in %s\n", ix.Deep.Model(), n, took.Round(10*time.Millisecond))
		}
		return err
	}
	cov, ok, err := ix.Deep.Peek(ctx)
	if err != nil || (ok && cov.Vectors >= cov.Chunks) {
		return err
	}
	if !ok { // no deep space yet: every chunk is left
		cov.Chunks, _, _ = ix.St.CorpusCounts(ctx, "")
	}
	fmt.Fprintf(opts.IO.ErrOut, "note: the deep tier (%s) has %d of %d chunks to embed; run `asky corpus embed`\n", ix.Deep.Model(), cov.Chunks-cov.Vectors, cov.Chunks)
	return nil
}

// walkedDirs are the arguments that name directories: re-ingesting one
// also drops the documents whose files were deleted from it.
func walkedDirs(paths []string) []string {
	var dirs []string
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		}
	}
	return dirs
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// progressBar draws files, MB, chunks and ETA on one stderr line. It is
// drawn from the ingest's writing goroutine and from its heartbeat.
type progressBar struct {
	w  interface{ Write([]byte) (int, error) }
	mu sync.Mutex
	// tick is the heartbeat's interval (a second when zero).
	tick time.Duration
	last time.Time
	n    int
	// The last counts drawn, which the heartbeat redraws.
	done, total int
	counts      string
}

func (p *progressBar) update(pr research.Progress) {
	p.draw(int(pr.Bytes), int(pr.TotalBytes), pr.Elapsed, ingestCounts(pr))
}

// ingestCounts is the bar's text for an ingest.
func ingestCounts(pr research.Progress) string {
	s := fmt.Sprintf("%d/%d files  %.1f/%.1f MB  %d chunks",
		pr.Files, pr.TotalFiles, float64(pr.Bytes)/1e6, float64(pr.TotalBytes)/1e6, pr.Chunks)
	if pr.Reextracted > 0 {
		s += fmt.Sprintf("  %d re-read (newer extractor)", pr.Reextracted)
	}
	return s
}

// snapshot reports the vector snapshot being written.
func (p *progressBar) snapshot() research.SnapshotProgress {
	var start time.Time
	return func(done, total int) {
		if start.IsZero() {
			start = time.Now()
		}
		p.draw(done, total, time.Since(start), fmt.Sprintf("indexing vectors %d/%d", done, total))
	}
}

// draw redraws the bar for done of total units with an ETA extrapolated
// from the elapsed time, at most every 100 ms (and always at the end).
func (p *progressBar) draw(done, total int, elapsed time.Duration, counts string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total, p.counts = done, total, counts
	p.drawLocked(done, total, elapsed, counts)
}

func (p *progressBar) drawLocked(done, total int, elapsed time.Duration, counts string) {
	if time.Since(p.last) < 100*time.Millisecond && done < total {
		return
	}
	p.last = time.Now()
	eta := "?"
	if done > 0 && total > done {
		eta = time.Duration(float64(elapsed) * float64(total-done) / float64(done)).Round(time.Second).String()
	} else if done >= total {
		eta = "0s"
	}
	width, filled := 24, 0
	if total > 0 {
		filled = min(width, int(float64(width)*float64(done)/float64(total)))
	}
	line := fmt.Sprintf("\r[%s%s] %s  ETA %s", strings.Repeat("=", filled), strings.Repeat(" ", width-filled), counts, eta)
	if pad := p.n - len(line); pad > 0 {
		line += strings.Repeat(" ", pad) // a shorter line must not leave the end of the longer one
	}
	p.n = len(line)
	fmt.Fprint(p.w, line)
}

// heartbeat starts redrawing the last counts with the time spent, every
// tick in which nothing else was drawn: one large file (a 20,000-page
// PDF) is read, chunked and embedded before its first update, and a blank
// or still line for 20 s looks like a hang. Stop it before clear.
func (p *progressBar) heartbeat(start time.Time) (stop func()) {
	tick := p.tick
	if tick <= 0 {
		tick = time.Second
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p.mu.Lock()
				if time.Since(p.last) >= tick {
					spent := time.Since(start)
					p.drawLocked(p.done, p.total, spent, fmt.Sprintf("%s  (working, %s)", p.counts, spent.Round(time.Second)))
				}
				p.mu.Unlock()
			}
		}
	}()
	return func() { close(done); <-stopped }
}

func (p *progressBar) clear() {
	if p.n > 0 {
		fmt.Fprint(p.w, "\r"+strings.Repeat(" ", p.n)+"\r")
	}
}
