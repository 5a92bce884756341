package research

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/askygo/asky/internal/store"
)

// PruneDeleted removes from the corpus the documents that were ingested
// from below one of dirs and whose files no longer exist, so re-ingesting
// a directory mirrors it: a deleted file stops answering questions. Files
// that still exist (even if now ignored) are kept. It returns what it
// removed.
func (in *Ingester) PruneDeleted(ctx context.Context, dirs []string) ([]store.CorpusSource, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	var roots []string
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		roots = append(roots, strings.TrimSuffix(abs, string(filepath.Separator))+string(filepath.Separator))
	}
	srcs, err := in.Index.St.ListCorpusSources(ctx)
	if err != nil {
		return nil, err
	}
	var gone []store.CorpusSource
	var ids []int64
	for _, s := range srcs {
		if !underAnyRoot(s.Path, roots) {
			continue
		}
		if _, err := os.Lstat(s.Path); errors.Is(err, fs.ErrNotExist) {
			gone, ids = append(gone, s), append(ids, s.ID)
		}
	}
	if len(gone) == 0 {
		return nil, nil
	}
	n := 0
	err = in.Index.RemoveSources(ctx, ids, in.OnSnapshot, func(int) { n++ })
	return gone[:n], err
}

// RemoveSources removes sources (their chunks, index entries and vectors)
// and keeps the vector snapshots current, as an ingest does: after each
// removal the rows of its vectors are patched out of each space's
// snapshot (see otherSnaps, snappatch.go), and a snapshot that could not
// follow is rewritten now with progress, not by the next query.
// removed is called after each source is gone; an error stops at the
// source that failed (those before it are removed).
func (ix *Index) RemoveSources(ctx context.Context, ids []int64, progress SnapshotProgress, removed func(i int)) error {
	// Which space is the active one is known once the index is open; an
	// index without an embedder (a model that cannot load) only removes.
	var others *otherSnaps
	var app *snapAppender
	opened := ix.Emb != nil && ix.Open(ctx) == nil
	if opened {
		others = ix.followOtherSpaces(ctx)
		app = ix.beginAppend(ctx)
	}
	defer others.close()
	defer func() { app.close() }()
	var err error
	n := 0
	for _, id := range ids {
		var dropped map[string][]int64
		if dropped, err = ix.St.RemoveCorpusSource(ctx, id); err != nil {
			break
		}
		others.removed(ctx, dropped)
		if app != nil && app.patchRows(ctx, app.gen+1, dropped[ix.fp], nil, nil) != nil {
			app.close()
			app = nil
		}
		if removed != nil {
			removed(n)
		}
		n++
	}
	app.close()
	app = nil
	if n > 0 {
		ix.Invalidate()
		if opened {
			// A cache: failing only costs the next query time.
			_ = ix.RefreshSnapshot(ctx, progress)
			others.finish(ctx, progress)
		}
	}
	return err
}

func underAnyRoot(p string, roots []string) bool {
	for _, r := range roots {
		if strings.HasPrefix(p, r) {
			return true
		}
	}
	return false
}
