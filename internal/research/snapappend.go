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
// appends when the batch was all new documents and no other process wrote
// in between (the generation moved by exactly one); otherwise it stops
// and the ingest rebuilds the file at its end.
type snapAppender struct {
	ix      *Index
	f, rows *os.File
	w       *snapWriter
	gen     int64
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

// append adds a committed batch; an error means the snapshot can no
// longer follow this ingest (the caller closes the appender).
func (a *snapAppender) append(ctx context.Context, writes []store.SourceWrite) error {
	var ids []int64
	var vecs [][]float32
	for _, d := range writes {
		if d.Replaced || len(d.ChunkIDs) != len(d.Vecs) {
			return errNotAppendable
		}
		ids, vecs = append(ids, d.ChunkIDs...), append(vecs, d.Vecs...)
	}
	return a.appendRows(ctx, a.gen+1, ids, vecs)
}

// appendRows adds vectors a transaction has just committed (ids[i] owns
// vecs[i]), when the space's facts show exactly them added since the
// last append and the corpus generation at gen: an ingest moves it by
// one, a deep pass leaves it. Anything else (another writer, a skipped
// vector) is errNotAppendable.
func (a *snapAppender) appendRows(ctx context.Context, gen int64, ids []int64, vecs [][]float32) error {
	f, err := a.ix.St.CorpusFacts(ctx, a.ix.fp)
	if err != nil {
		return err
	}
	if f.Generation != gen || f.Vectors != a.w.total()+len(vecs) || len(ids) != len(vecs) {
		return errNotAppendable
	}
	for k, v := range vecs {
		if len(v) == 0 {
			return errNotAppendable
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
