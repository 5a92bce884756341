package research

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/store"
)

// snapRow is one row of a snapshot as the files hold it.
type snapRow struct {
	scale, crc  uint32
	codes, f32s string
}

// snapContents reads the snapshot files of ix: the header's first 32
// bytes (magic, dimension, rows per block, generation, count) and every
// row by chunk id. It fails on anything a reader would reject or a
// rewrite would not write: a block count or CRC that does not match,
// a row CRC off, bytes left in the unused slots of the last block, an id
// twice.
func snapContents(t *testing.T, ix *Index) (string, map[int64]snapRow) {
	t.Helper()
	blocks, err := os.ReadFile(ix.snapshotPath())
	if err != nil {
		t.Fatal(err)
	}
	rowsFile, err := os.ReadFile(ix.rowsPath())
	if err != nil {
		t.Fatal(err)
	}
	dim := ix.spec.Dim
	count := int(binary.LittleEndian.Uint64(blocks[24:]))
	l := layoutFor(dim, count)
	if int64(len(blocks)) < l.size() || int64(len(rowsFile)) < l.rowsSize() {
		t.Fatalf("files of %d+%d bytes for %d rows", len(blocks), len(rowsFile), count)
	}
	out := map[int64]snapRow{}
	for b := 0; b < l.blocks; b++ {
		blk := blocks[l.blockOff(b) : l.blockOff(b)+int64(l.blockSize)]
		n := int(binary.LittleEndian.Uint32(blk))
		if n != min(snapBlockRows, count-b*snapBlockRows) {
			t.Fatalf("block %d holds %d rows of %d", b, n, count)
		}
		if blockCRC(blk) != binary.LittleEndian.Uint32(blk[4:]) {
			t.Fatalf("block %d: CRC does not match", b)
		}
		for _, unused := range [][]byte{blk[snapIDsOff+8*n : snapScalesOff], blk[snapScalesOff+4*n : snapRowCRCOff],
			blk[snapRowCRCOff+4*n : snapCodesOff], blk[snapCodesOff+dim*n:]} {
			if !bytes.Equal(unused, make([]byte, len(unused))) {
				t.Fatalf("block %d: bytes left past its %d rows", b, n)
			}
		}
		for r := 0; r < n; r++ {
			id := int64(binary.LittleEndian.Uint64(blk[snapIDsOff+8*r:]))
			at := (b*snapBlockRows + r) * dim * 4
			row := snapRow{scale: binary.LittleEndian.Uint32(blk[snapScalesOff+4*r:]), crc: binary.LittleEndian.Uint32(blk[snapRowCRCOff+4*r:]),
				codes: string(blk[snapCodesOff+dim*r : snapCodesOff+dim*(r+1)]), f32s: string(rowsFile[at : at+dim*4])}
			if crc32.Checksum([]byte(row.f32s), castagnoli) != row.crc {
				t.Fatalf("row %d (chunk %d): float32 row CRC does not match", b*snapBlockRows+r, id)
			}
			if _, dup := out[id]; dup {
				t.Fatalf("chunk %d twice", id)
			}
			out[id] = row
		}
	}
	return string(blocks[:32]), out
}

// sameAsRebuild fails unless the snapshot files hold the rows a rewrite
// from SQLite writes, under the same header. Rows patched out of the
// files (snappatch.go) leave the others in another order than a
// rewrite's, so rows are compared by chunk id.
func sameAsRebuild(t *testing.T, ix *Index) {
	t.Helper()
	keptHead, kept := snapContents(t, ix)
	ix.Invalidate()
	ix.removeSnapshot()
	if err := ix.RefreshSnapshot(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	freshHead, fresh := snapContents(t, ix)
	if keptHead != freshHead || len(kept) == 0 || !reflect.DeepEqual(kept, fresh) {
		t.Fatalf("snapshot kept (%d rows) differs from a rebuild (%d rows)", len(kept), len(fresh))
	}
}

// matchesStore fails unless the snapshot files of ix are current and
// hold exactly the space's vectors in SQLite (by chunk id), without
// rewriting them.
func matchesStore(t *testing.T, ix *Index, step string) {
	t.Helper()
	requireCurrent(t, ix, step+": snapshot not current")
	_, rows := snapContents(t, ix)
	want := map[int64]string{}
	dim := ix.spec.Dim
	err := ix.St.EachVectorBlock(context.Background(), ix.Fingerprint(), dim, nil, func(b store.VectorBlock) error {
		for i, id := range b.IDs {
			want[id] = string(b.Vecs[4*dim*i : 4*dim*(i+1)])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(want) {
		t.Fatalf("%s: %d rows in the snapshot, %d vectors stored", step, len(rows), len(want))
	}
	for id, r := range rows {
		if want[id] != r.f32s {
			t.Fatalf("%s: chunk %d's row is not its stored vector", step, id)
		}
	}
}

// TestSnapshotPatchesFollowReplacesAndRemovals replaces and removes
// documents of many sizes at random (rows leaving from the middle, the
// end, across block boundaries, a document taking a whole block with
// it, the last document) and checks after every step, without any
// rewrite in between, that the snapshot was patched in place and holds
// exactly the stored vectors; at the end it matches a rewrite.
func TestSnapshotPatchesFollowReplacesAndRemovals(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))
	sy := newSynth(3)
	body := func() string {
		n := []int{1, 3, 60, 600, 1500}[rng.IntN(5)]
		var b strings.Builder
		b.WriteString("# Doc\n\n")
		for i := 0; i < n; i++ {
			b.WriteString(sy.sentence() + "\n\n")
		}
		return b.String()
	}
	ix := newTestIndex(t)
	ix.SnapshotDir = t.TempDir()
	dir := t.TempDir()
	for i := 0; i < 8; i++ {
		write(t, filepath.Join(dir, fmt.Sprintf("d%d.md", i)), body())
	}
	in := &Ingester{Index: ix, Chunker: Chunker{Size: 40, Overlap: 0}}
	ingestWith(t, in, dir)
	file := func() os.FileInfo {
		st, err := os.Stat(ix.snapshotPath())
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	orig := file()
	for step := 0; step < 24; step++ {
		name := fmt.Sprintf("d%d.md", rng.IntN(8))
		path := filepath.Join(dir, name)
		src, err := ix.St.CorpusSourceByPath(ctx, path)
		switch {
		case err != nil: // removed earlier: back
			write(t, path, body())
			ingestWith(t, in, path)
		case rng.IntN(3) == 0:
			if err := ix.RemoveSources(ctx, []int64{src.ID}, nil, nil); err != nil {
				t.Fatal(err)
			}
			os.Remove(path)
		default:
			write(t, path, body())
			if r := ingestWith(t, in, path)[name]; r.Status != StatusIngested {
				t.Fatalf("step %d: %+v", step, r)
			}
		}
		matchesStore(t, ix, fmt.Sprintf("step %d (%s)", step, name))
		if !os.SameFile(orig, file()) {
			t.Fatalf("step %d: the snapshot was rewritten instead of patched", step)
		}
	}
	sameAsRebuild(t, ix)
}
