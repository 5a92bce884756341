package corpus

import (
	"context"
	"errors"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/research"
	"github.com/askygo/asky/internal/store"
)

// openIndex builds the hybrid index for the configured embedder.
func openIndex(f *cmdutil.Factory) (*config.Config, *store.Store, *research.Index, error) {
	cfg, err := f.Config()
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := f.Store()
	if err != nil {
		return nil, nil, nil, err
	}
	ix, err := NewIndex(cfg, st, f)
	return cfg, st, ix, err
}

// NewIndex builds the index for cfg's embedder; shared with `-r`.
func NewIndex(cfg *config.Config, st *store.Store, f *cmdutil.Factory) (*research.Index, error) {
	emb, err := research.NewEmbedder(cfg.Research.Embedding, f.HTTPClient(), f.Getenv)
	var broken *research.ModelLoadError
	if errors.As(err, &broken) {
		// Keyword-only index: queries may still use it; nothing writes
		// with it (ingest and reindex return the error).
		return &research.Index{St: st, LexicalWeight: 1}, err
	}
	if err != nil {
		return nil, cmdutil.WithHint(err, "check [research.embedding] in your config (`asky config show`)")
	}
	deep := research.NewDeep(cfg.Research, st, f.HTTPClient(), f.Getenv, cfg.Paths.CacheDir)
	return &research.Index{St: st, Emb: emb, DenseWeight: cfg.Research.DenseWeight, LexicalWeight: cfg.Research.LexicalWeight,
		SnapshotDir: cfg.Paths.CacheDir, Deep: deep}, nil
}

// NewIngester adds files to ix the way `corpus ingest` does ([research]
// chunking and allowed extensions); shared with the daemon's uploads.
func NewIngester(cfg *config.Config, ix *research.Index) *research.Ingester {
	return &research.Ingester{Index: ix, Chunker: research.Chunker{Size: cfg.Research.ChunkSize, Overlap: cfg.Research.ChunkOverlap},
		Allowed: cfg.Research.AllowedIngestionExtensions}
}

// resolveSourceIDs resolves --source values (ids, handles, paths,
// directories or titles) to source ids.
func resolveSourceIDs(ctx context.Context, st *store.Store, refs []string) ([]int64, error) {
	var ids []int64
	for _, ref := range refs {
		got, err := research.ResolveSources(ctx, st, ref)
		if err != nil {
			return nil, resolveErr(err)
		}
		ids = append(ids, got...)
	}
	return ids, nil
}

// resolveErr adds hints to source lookup errors.
func resolveErr(err error) error {
	var amb *research.AmbiguousSourceError
	switch {
	case errors.As(err, &amb):
		return cmdutil.WithHint(err, "use the numeric id from `asky corpus list`")
	case errors.Is(err, research.ErrNoSource):
		return cmdutil.WithHint(err, "see `asky corpus list` for ingested sources")
	}
	return err
}
