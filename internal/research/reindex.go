package research

import (
	"context"
	"errors"
)

// Reindex embeds every chunk lacking a vector in the active space, from
// the stored text, after dropping the vectors of every other space; they
// are written one source per transaction (vectors are stored per source).
// A stale space (canary mismatch) is rebuilt from scratch. progress gets the chunks embedded so far and how many
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
	keep := []string{ix.fp}
	if ix.Deep != nil {
		// The deep tier's vectors stay valid: its pass fills them.
		if err := ix.Deep.open(ctx); err != nil {
			return 0, err
		}
		keep = append(keep, ix.Deep.Fingerprint())
	}
	if err := ix.St.DropOtherSpaces(ctx, keep...); err != nil {
		return 0, err
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
			chunks, err := ix.St.SourceChunks(ctx, sid)
			if err != nil {
				return done, err
			}
			// Vectors are stored per source; embed in batches for the
			// embedder and progress, write once per source.
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
					return done, err
				}
				vecs = append(vecs, v...)
				done += len(part)
				if progress != nil {
					progress(done, max(total, done))
				}
			}
			if err := ix.St.PutSourceVectors(ctx, ix.fp, sid, ids, vecs); err != nil {
				return done, err
			}
		}
	}
	ix.Missing = 0
	ix.Invalidate()
	if done > 0 {
		_ = ix.RefreshSnapshot(ctx, nil) // a cache: failing only costs the next query time
	}
	return done, nil
}
