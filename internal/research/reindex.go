package research

import (
	"context"
	"errors"

	"github.com/askygo/asky/internal/store"
)

// Reindex embeds every chunk lacking a vector in the active space, from
// the stored text, after dropping the vectors of every other space but
// the deep tier's; they are written one source per transaction (vectors
// are stored per source). A stale space (canary mismatch) is rebuilt
// from scratch. progress gets the chunks embedded so far and how many
// needed it; snap the vector snapshot being written, if it must be.
//
// Every write moves the corpus generation, so both snapshots follow the
// writes as an ingest's do: the main one gets each source's vectors
// appended, the deep one (whose vectors a reindex leaves as they are) is
// re-stamped. Left stale, the first query after a reindex rewrote the
// deep snapshot from SQLite before answering. A snapshot that cannot
// follow is rewritten at the end, with progress.
func Reindex(ctx context.Context, ix *Index, progress func(done, total int), snap SnapshotProgress) (int, error) {
	err := ix.Open(ctx)
	var stale *StaleSpaceError
	if errors.As(err, &stale) {
		// The model changed under the same identity: forget its vectors
		// and canary, then rebuild. The deep tier's vectors come from
		// another model and stay valid.
		if err := ix.resetSpace(ctx, stale.Fingerprint); err != nil {
			return 0, err
		}
		err = ix.Open(ctx)
	}
	if err != nil {
		return 0, err
	}
	keep := []string{ix.fp}
	if ix.Deep != nil {
		// The deep tier's vectors stay valid: its pass fills them.
		if err := ix.Deep.open(ctx); err != nil {
			return 0, err
		}
		keep = append(keep, ix.Deep.Fingerprint())
	}
	others := ix.followOtherSpaces(ctx)
	defer others.close()
	app := ix.beginAppend(ctx)
	defer func() { app.close() }()
	dropped, err := ix.St.DropOtherSpacesCounted(ctx, keep...)
	if err != nil {
		return 0, err
	}
	if len(dropped) > 0 {
		// One generation for the drop: the kept snapshots follow it.
		others.spacesDropped(ctx, dropped)
		if app != nil && app.appendRows(ctx, app.gen+1, nil, nil) != nil {
			app.close()
			app = nil
		}
		for fp := range dropped {
			// Their space is gone: nothing will read these files again.
			(&Index{SnapshotDir: ix.SnapshotDir, fp: fp}).removeSnapshot()
		}
	}
	chunks, vectors, err := ix.St.CorpusCounts(ctx, ix.fp)
	if err != nil {
		return 0, err
	}
	total := max(0, chunks-vectors)
	done := 0
	for {
		sources, err := ix.St.SourcesMissingVectors(ctx, ix.fp, 64)
		if err != nil {
			return done, err
		}
		if len(sources) == 0 {
			break
		}
		for _, sid := range sources {
			err := ix.reembedSource(ctx, sid, others, &app, func(k int) {
				done += k
				if progress != nil {
					progress(done, max(total, done))
				}
			})
			if err != nil {
				return done, err
			}
		}
	}
	app.close()
	app = nil
	ix.Missing = 0
	ix.Invalidate()
	// A header check for each snapshot that followed; a rewrite for
	// the others. A cache: failing only costs the next query time.
	_ = ix.RefreshSnapshot(ctx, snap)
	others.finish(ctx, snap)
	return done, nil
}

// reembedSource embeds one source's chunks (in batches, for the
// embedder and progress) and writes its vectors in one transaction,
// which the snapshots then follow.
func (ix *Index) reembedSource(ctx context.Context, sid int64, others *otherSnaps, app **snapAppender, embedded func(int)) error {
	chunks, err := ix.St.SourceChunks(ctx, sid)
	if err != nil {
		return err
	}
	ids := make([]int64, len(chunks))
	vecs := make([][]float32, 0, len(chunks))
	for lo := 0; lo < len(chunks); lo += 256 {
		part := chunks[lo:min(lo+256, len(chunks))]
		texts := make([]string, len(part))
		for i, c := range part {
			texts[i], ids[lo+i] = EmbedText(c), c.ID
		}
		v, err := ix.Emb.EmbedDocuments(ctx, texts)
		if err != nil {
			return err
		}
		vecs = append(vecs, v...)
		embedded(len(part))
	}
	if err := ix.St.PutSourceVectors(ctx, ix.fp, sid, ids, vecs); err != nil {
		return err
	}
	// The source had no vector in this space (SourcesMissingVectors), so
	// the write only added; no other space's vectors changed.
	others.removed(ctx, nil)
	if a := *app; a != nil && a.appendRows(ctx, a.gen+1, ids, vecs) != nil {
		a.close()
		*app = nil
	}
	return nil
}

// resetSpace forgets a stale space's vectors and snapshot and stores a
// fresh canary, so the space is rebuilt under the same fingerprint. Only
// this space changes (the generation does not move), so the other
// spaces' snapshots stay current.
func (ix *Index) resetSpace(ctx context.Context, fp string) error {
	probe, err := Probe(ctx, ix.Emb)
	if err != nil {
		return &EmbedderError{Err: err}
	}
	ix.Invalidate()
	ix.mu.Lock()
	spec := ix.spec
	ix.ready = false
	ix.mu.Unlock()
	if ix.SnapshotDir != "" {
		ix.removeSnapshot()
	}
	if err := ix.St.DropSpace(ctx, fp); err != nil {
		return err
	}
	return ix.St.PutEmbeddingSpace(ctx, store.EmbeddingSpace{Fingerprint: fp, SpecJSON: spec.JSON(), Dim: spec.Dim, Probe: probe, State: "ready"})
}
