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
	for _, s := range srcs {
		if !underAnyRoot(s.Path, roots) {
			continue
		}
		if _, err := os.Lstat(s.Path); errors.Is(err, fs.ErrNotExist) {
			gone = append(gone, s)
		}
	}
	if len(gone) == 0 {
		return nil, nil
	}
	// The other spaces' snapshots (the deep tier's) are re-stamped after
	// each removal that deleted none of their vectors (see otherSnaps);
	// which space is the active one is known once the index is open.
	var others *otherSnaps
	if in.Index.Open(ctx) == nil {
		others = in.Index.followOtherSpaces(ctx)
	}
	defer others.close()
	var removed []store.CorpusSource
	for _, s := range gone {
		dropped, err := in.Index.St.RemoveCorpusSource(ctx, s.ID)
		if err != nil {
			return removed, err
		}
		others.removed(ctx, dropped)
		removed = append(removed, s)
	}
	if len(removed) > 0 {
		in.Index.Invalidate()
		// Rebuilt now rather than by the next query (a cache: failing
		// only costs that query time).
		_ = in.Index.RefreshSnapshot(ctx, in.OnSnapshot)
		others.finish(ctx, in.OnSnapshot)
	}
	return removed, nil
}

func underAnyRoot(p string, roots []string) bool {
	for _, r := range roots {
		if strings.HasPrefix(p, r) {
			return true
		}
	}
	return false
}
