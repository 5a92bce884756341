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
	ix  *Index
	f   *os.File
	w   *snapWriter
	gen int64
}

var errNotAppendable = errors.New("vector snapshot: batch not appendable")

// beginAppend opens the current snapshot for appending (creating an empty
// one for an empty space); nil when it is missing, stale, locked or there
// is no snapshot directory.
func (ix *Index) beginAppend(ctx context.Context) *snapAppender {
	if ix.SnapshotDir == "" || !nativeLittleEndian() {
		return nil
	}
	f, err := ix.St.CorpusFacts(ctx, ix.fp)
	if err != nil {
		return nil
	}
	if f.Vectors == 0 && ix.writeEmptySnapshot(f.Generation) != nil {
		return nil
	}
	file, _, ok := ix.openCurrent(os.O_RDWR, f.Generation, f.Vectors)
	if !ok {
		return nil
	}
	w := newSnapWriter(file, ix.spec.Dim, -1)
	if lockFile(file) != nil || w.resume(f.Vectors) != nil {
		file.Close()
		return nil
	}
	return &snapAppender{ix: ix, f: file, w: w, gen: f.Generation}
}

// writeEmptySnapshot stamps a snapshot of no vectors at gen.
func (ix *Index) writeEmptySnapshot(gen int64) error {
	if err := os.MkdirAll(ix.SnapshotDir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(ix.SnapshotDir, ".vectors-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(encodeHeader(ix.spec.Dim, gen, 0)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), ix.snapshotPath())
}

// append adds a committed batch; an error means the snapshot can no
// longer follow this ingest (the caller closes the appender).
func (a *snapAppender) append(ctx context.Context, writes []store.SourceWrite) error {
	added := 0
	for _, d := range writes {
		if d.Replaced || len(d.ChunkIDs) != len(d.Vecs) {
			return errNotAppendable
		}
		added += len(d.Vecs)
	}
	f, err := a.ix.St.CorpusFacts(ctx, a.ix.fp)
	if err != nil {
		return err
	}
	if f.Generation != a.gen+1 || f.Vectors != a.w.total()+added {
		return errNotAppendable
	}
	for _, d := range writes {
		for k, v := range d.Vecs {
			if len(v) == 0 {
				return errNotAppendable
			}
			if err := a.w.add(d.ChunkIDs[k], unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))); err != nil {
				return err
			}
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

func (a *snapAppender) close() {
	if a != nil {
		a.f.Close()
	}
}
