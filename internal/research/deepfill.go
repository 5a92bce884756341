package research

// This file is the deep tier's fill: the resumable pass that embeds the
// stored chunks, and the snapshot it keeps current as it commits.

import (
	"context"
	"errors"
	"fmt"

	"github.com/askygo/asky/internal/store"
)

// FillDeep embeds every chunk that has no deep vector yet, from the
// stored text, and commits each batch of deepFillBatch chunks in one
// transaction: a kill or Ctrl-C loses at most the batch in flight, and
// the next call resumes with the chunks still missing (none is embedded
// twice). progress gets the chunks with a deep vector and the total.
// Vectors of deep models used before are dropped first.
func (ix *Index) FillDeep(ctx context.Context, progress func(done, total int)) (int, error) {
	return ix.FillDeepYielding(ctx, nil, progress)
}

// Foreground is work a background deep pass gives way to: the daemon's
// turns in flight, which a fill on every core would slow.
type Foreground interface {
	// Idle returns nil at once when no foreground work runs, else when
	// the last of it ends; ctx's error if ctx ends first (it may return
	// it at once once ctx has ended). It is called from several
	// goroutines.
	Idle(ctx context.Context) error
}

// FillDeepYielding is FillDeep giving way to fg (nil: never): it waits
// for fg to be idle before each batch, and the compiled-in transformer
// pauses inside one too (embedYielding), so a turn that starts gets the
// cores within a fraction of a second. Waiting loses nothing: the batch
// in flight is kept and finished, or dropped whole when ctx ends.
func (ix *Index) FillDeepYielding(ctx context.Context, fg Foreground, progress func(done, total int)) (int, error) {
	if ix.Deep == nil {
		return 0, errors.New("the deep tier is off")
	}
	if fg != nil {
		if err := fg.Idle(ctx); err != nil {
			return 0, err // not even the deep model's probe while a turn runs
		}
	}
	if err := ix.Open(ctx); err != nil {
		return 0, err
	}
	d := ix.Deep.ix
	if err := ix.Deep.open(ctx); err != nil {
		return 0, err
	}
	if err := ix.St.DropOtherSpaces(ctx, ix.fp, d.fp); err != nil {
		return 0, err
	}
	// Dropping an old model's vectors moved the corpus generation, which
	// leaves the main space's snapshot stale though its vectors did not
	// change: rewrite it now (a header check when it is current), not in
	// the first query after the pass. A cache: failing costs only speed.
	_ = ix.RefreshSnapshot(ctx, nil)
	f, err := ix.St.CorpusFacts(ctx, d.fp)
	if err != nil {
		return 0, err
	}
	have, total := f.Vectors, f.Chunks
	if progress != nil && have < total {
		progress(have, total)
	}
	n := 0
	// The deep snapshot follows the batches (below), so a query
	// during or right after the pass maps it instead of writing it.
	snap := &deepSnapFollower{d: d}
	defer func() {
		snap.close()
		if n == 0 {
			return
		}
		d.Invalidate()
		if !snap.current() && ctx.Err() == nil && (fg == nil || fg.Idle(ctx) == nil) {
			// It could not follow (another pass wrote beside this one):
			// the next query maps the deep vectors instead of writing
			// the snapshot first (a cache: failing costs only speed).
			_ = d.RefreshSnapshot(context.WithoutCancel(ctx), nil)
		}
	}()
	for ctx.Err() == nil {
		if fg != nil && fg.Idle(ctx) != nil {
			break
		}
		chunks, err := ix.St.ChunksMissingVectors(ctx, d.fp, deepFillBatch)
		if err != nil || len(chunks) == 0 {
			return n, err
		}
		texts := make([]string, len(chunks))
		for i, c := range chunks {
			texts[i] = EmbedText(c)
		}
		vecs, err := embedYielding(ctx, d.Emb, texts, fg)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return n, fmt.Errorf("deep tier: %w", &EmbedderError{Err: err, Deep: true})
		}
		if len(vecs) != len(chunks) {
			return n, fmt.Errorf("deep tier: %d vectors for %d chunks", len(vecs), len(chunks))
		}
		var batch []store.ChunkVectors
		for i, c := range chunks {
			if len(vecs[i]) != d.spec.Dim {
				return n, fmt.Errorf("deep tier: embedder returned %d dimensions, expected %d", len(vecs[i]), d.spec.Dim)
			}
			if len(batch) == 0 || batch[len(batch)-1].SourceID != c.SourceID {
				batch = append(batch, store.ChunkVectors{SourceID: c.SourceID})
			}
			b := &batch[len(batch)-1]
			b.IDs, b.Vecs = append(b.IDs, c.ID), append(b.Vecs, vecs[i])
		}
		// Written even when ctx was cancelled during the embedding: the
		// work is done and the write is short.
		wctx := context.WithoutCancel(ctx)
		snap.ready(wctx)
		added, err := ix.St.AddChunkVectors(wctx, d.fp, batch)
		if err != nil {
			return n, err
		}
		snap.committed(wctx, added, batch)
		n += len(chunks)
		have += len(chunks)
		if progress != nil {
			progress(have, max(total, have))
		}
	}
	return n, ctx.Err()
}

// deepSnapFollower keeps the deep tier's vector snapshot current while a
// pass fills it, as an ingest does for the main space (snapAppender):
// each committed batch is appended to the files. Rewriting them from
// SQLite at the end instead left every query during a fill (each sees
// new vectors) to rewrite them first, ~0.2–2 s at 100k chunks while the
// fill competed for the cores, and so was the first query after the
// last batch, until the pass had rewritten them itself.
type deepSnapFollower struct {
	d   *Index
	app *snapAppender
	// lost is set once a batch could not be appended (another pass wrote
	// beside this one): the pass rewrites the files at its end.
	lost bool
	// rebuilt is set once the pass rewrote stale files to follow them.
	rebuilt bool
}

// ready opens the snapshot for appending before a batch is committed.
// Files that are missing or stale (an ingest moved the corpus generation
// since they were written) are rewritten once first: the rewrite the
// pass would otherwise leave to its end, or to the next query.
func (fw *deepSnapFollower) ready(ctx context.Context) {
	if fw.d.SnapshotDir == "" || fw.lost {
		return
	}
	if fw.app != nil && !fw.app.replaced() {
		return
	}
	fw.app.close()
	fw.app = fw.d.beginAppend(ctx)
	if fw.app == nil && !fw.rebuilt {
		fw.rebuilt = true
		fw.d.Invalidate()
		if fw.d.RefreshSnapshot(ctx, nil) == nil {
			fw.app = fw.d.beginAppend(ctx)
		}
	}
}

// committed appends a batch the pass has just committed, of which the
// store added added vectors (it skips chunks another pass embedded
// meanwhile, which the snapshot cannot follow).
func (fw *deepSnapFollower) committed(ctx context.Context, added int, batch []store.ChunkVectors) {
	if fw.app == nil {
		fw.lost = fw.d.SnapshotDir != ""
		return
	}
	var ids []int64
	var vecs [][]float32
	for _, b := range batch {
		ids, vecs = append(ids, b.IDs...), append(vecs, b.Vecs...)
	}
	if added != len(ids) || fw.app.appendRows(ctx, fw.app.gen, ids, vecs) != nil {
		fw.app.close()
		fw.app = nil
		fw.lost = true
	}
}

// current reports that every committed batch was appended: the files
// match the deep vectors and nothing is left to rewrite.
func (fw *deepSnapFollower) current() bool { return fw.app != nil && !fw.lost }

func (fw *deepSnapFollower) close() { fw.app.close() }
