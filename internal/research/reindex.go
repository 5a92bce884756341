package research

import (
	"context"
	"errors"
)

// Reindex embeds every chunk lacking a vector in the active space, from
// the stored text, in batches of one transaction each, then drops the
// vectors of every other space. A stale space (canary mismatch) is rebuilt
// from scratch. progress gets the chunks embedded so far and how many
// needed it.
func Reindex(ctx context.Context, ix *Index, progress func(done, total int)) (int, error) {
	err := ix.Open(ctx)
	var stale *StaleSpaceError
	if errors.As(err, &stale) {
		// The model changed under the same identity: forget the old vectors
		// and the old canary, then rebuild.
		if err := ix.St.DropOtherSpaces(ctx, ""); err != nil {
			return 0, err
		}
		ix.ready = false
		err = ix.Open(ctx)
	}
	if err != nil {
		return 0, err
	}
	if err := ix.St.DropOtherSpaces(ctx, ix.fp); err != nil {
		return 0, err
	}
	chunks, vectors, err := ix.St.CorpusCounts(ctx, ix.fp)
	if err != nil {
		return 0, err
	}
	total := max(0, chunks-vectors)
	done := 0
	for {
		chunks, err := ix.St.ChunksMissingVectors(ctx, ix.fp, 256)
		if err != nil {
			return done, err
		}
		if len(chunks) == 0 {
			break
		}
		texts := make([]string, len(chunks))
		ids := make([]int64, len(chunks))
		for i, c := range chunks {
			texts[i], ids[i] = EmbedText(c), c.ID
		}
		vecs, err := ix.Emb.EmbedDocuments(ctx, texts)
		if err != nil {
			return done, err
		}
		if err := ix.St.PutChunkVectors(ctx, ix.fp, ids, vecs); err != nil {
			return done, err
		}
		done += len(chunks)
		if progress != nil {
			progress(done, max(total, done))
		}
	}
	ix.Missing = 0
	ix.Invalidate()
	return done, nil
}
