package research

import (
	"context"

	"github.com/askygo/asky/internal/store"
)

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
