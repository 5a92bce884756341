package research

import (
	"context"
	"errors"
	"os"
	"unsafe"

	"github.com/askygo/asky/internal/store"
)

// snapAppender keeps the vector snapshot current while an ingest writes:
// after each committed batch its vectors are appended (the last partial
// block completed in place) and the header is stamped with the new
// generation and count, so the first query after an ingest maps the file
// at once, and no ingest re-reads the corpus to rebuild it. It only
// follows a batch when no other process wrote in between (the generation
// moved by exactly one): the rows of replaced documents are patched out
// (snappatch.go) before the new ones are appended. Otherwise it stops and
// the ingest rebuilds the file at its end.
type snapAppender struct {
	ix      *Index
	f, rows *os.File
	w       *snapWriter
	gen     int64
	// pos maps chunk ids to rows, loaded by the first removal (see
	// snappatch.go) and kept current by later appends and removals.
	pos map[int64]int
}

var errNotAppendable = errors.New("vector snapshot: batch not appendable")

// beginAppend opens the current snapshot for appending (creating an empty
// one for an empty space); nil when it is missing, stale, locked or there
// is no snapshot directory. The lock is on the blocks file; rows are
// written before the blocks and the header, which makes them count.
func (ix *Index) beginAppend(ctx context.Context) *snapAppender {
	if ix.SnapshotDir == "" || !nativeLittleEndian() {
		return nil
	}
	f, err := ix.St.CorpusFacts(ctx, ix.fp)
	if err != nil {
		return nil
	}
	if f.Vectors == 0 && ix.createSnapshot(f, func(*snapWriter) error { return nil }) != nil {
		return nil
	}
	file, rows, _, ok := ix.openCurrent(os.O_RDWR, f.Generation, f.Vectors)
	if !ok {
		return nil
	}
	w := newSnapWriter(file, rows, ix.spec.Dim, -1)
	if lockFile(file) != nil || w.resume(f.Vectors) != nil {
		file.Close()
		rows.Close()
		return nil
	}
	return &snapAppender{ix: ix, f: file, rows: rows, w: w, gen: f.Generation}
}

// append adds a committed batch (the rows of replaced documents' old
// vectors taken out first); an error means the snapshot can no longer
// follow this ingest (the caller closes the appender).
func (a *snapAppender) append(ctx context.Context, writes []store.SourceWrite) error {
	var removed, ids []int64
	var vecs [][]float32
	for _, d := range writes {
		if len(d.ChunkIDs) != len(d.Vecs) {
			return errNotAppendable
		}
		removed = append(removed, d.Dropped[a.ix.fp]...)
		ids, vecs = append(ids, d.ChunkIDs...), append(vecs, d.Vecs...)
	}
	return a.patchRows(ctx, a.gen+1, removed, ids, vecs)
}

// appendRows is patchRows that removes nothing.
func (a *snapAppender) appendRows(ctx context.Context, gen int64, ids []int64, vecs [][]float32) error {
	return a.patchRows(ctx, gen, nil, ids, vecs)
}

// patchRows follows a transaction that has just committed: the rows of
// removed (whose vectors it deleted) are taken out, then vecs are added
// (ids[i] owns vecs[i]), when the space's facts show exactly that change
// since the last patch and the corpus generation at gen: an ingest moves
// it by one, a deep pass leaves it. Anything else (another writer, a
// skipped vector) is errNotAppendable, found before a byte is written.
func (a *snapAppender) patchRows(ctx context.Context, gen int64, removed, ids []int64, vecs [][]float32) error {
	f, err := a.ix.St.CorpusFacts(ctx, a.ix.fp)
	if err != nil {
		return err
	}
	if f.Generation != gen || f.Vectors != a.w.total()-len(removed)+len(vecs) || len(ids) != len(vecs) {
		return errNotAppendable
	}
	for _, v := range vecs {
		if len(v) == 0 {
			return errNotAppendable
		}
	}
	if err := a.removeRows(removed); err != nil {
		return err
	}
	for k, v := range vecs {
		if a.pos != nil {
			a.pos[ids[k]] = a.w.total()
		}
		if err := a.w.add(ids[k], unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))); err != nil {
			return err
		}
	}
	if err := a.w.flush(); err != nil {
		return err
	}
	if _, err := a.f.WriteAt(encodeHeader(a.ix.spec.Dim, f.Generation, a.w.total()), 0); err != nil {
		return err
	}
	a.gen = f.Generation
	return nil
}

// replaced reports that the snapshot path no longer names the file being
// appended to (a query rebuilt it meanwhile): appending there would only
// grow an unlinked file.
func (a *snapAppender) replaced() bool {
	mine, err := a.f.Stat()
	if err != nil {
		return true
	}
	now, err := os.Stat(a.ix.snapshotPath())
	return err != nil || !os.SameFile(mine, now)
}

func (a *snapAppender) close() {
	if a != nil {
		a.f.Close()
		a.rows.Close()
	}
}
