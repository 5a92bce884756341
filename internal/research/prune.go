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
	var removed []store.CorpusSource
	for _, s := range srcs {
		if !underAnyRoot(s.Path, roots) {
			continue
		}
		if _, err := os.Lstat(s.Path); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := in.Index.St.DeleteCorpusSource(ctx, s.ID); err != nil {
			return removed, err
		}
		removed = append(removed, s)
	}
	if len(removed) > 0 {
		in.Index.Invalidate()
		// Rebuilt now rather than by the next query (a cache: failing
		// only costs that query time).
		_ = in.Index.RefreshSnapshot(ctx, in.OnSnapshot)
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
