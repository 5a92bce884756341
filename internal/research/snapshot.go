package research

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"unsafe"

	"github.com/askygo/asky/internal/store"
)

// The vector snapshot is a cache of the active space's vectors in two
// files in the cache directory, so a cold `corpus query` reads them at
// page-cache speed instead of decoding every vector through SQLite.
// SQLite stays the source of truth: the files are stamped with the corpus
// generation and vector count, and any mismatch, damage or read error is
// a cache miss that rebuilds them from SQLite.
//
// vectors-<space>.snap (mapped read-only by each query; little-endian):
//
//	header  64 B: magic, dim, rows per block, generation, count, CRC-32C of the first 60 bytes
//	blocks  each snapBlockRows rows, all full but the last: n, CRC-32C of
//	        the block, then ids int64, scales float32, row CRCs uint32,
//	        int8 codes
//
// vectors-<space>.f32: the float32 rows, in the same order.
//
// The scan reads only the blocks (a quarter of the float32 bytes): each
// row is an int8 code with a per-row scale, scored against the query, and
// the best candidates are rescored with their float32 rows (read
// with pread the first time, see snapSet.rescore) until a
// bound on the quantization error proves the top n: the final order is
// exactly the float32 scan's. A block's CRC is checked the first time a
// process scans it, in the same pass; a float32 row's CRC when it is
// rescored. A flipped byte anywhere a result comes from is therefore
// caught, and the files are rebuilt. An ingest keeps them current as it
// writes instead of rewriting them: new rows are appended (snapAppender)
// and removed ones are filled by the last rows (snappatch.go).
const (
	snapshotMagic  = "ASKYVEC4"
	snapHeaderSize = 64
	snapBlockRows  = 256
	snapBlockHead  = 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errSnapshotDamaged means a checksum did not match: the file is rebuilt.
var errSnapshotDamaged = errors.New("vector snapshot damaged")

func (ix *Index) snapshotPath() string {
	return filepath.Join(ix.SnapshotDir, "vectors-"+ix.fp+".snap")
}

func (ix *Index) rowsPath() string {
	return filepath.Join(ix.SnapshotDir, "vectors-"+ix.fp+".f32")
}

// removeSnapshot deletes both files (a damaged snapshot). Without a
// snapshot directory there are none: the names would be relative to the
// working directory.
func (ix *Index) removeSnapshot() {
	if ix.SnapshotDir == "" {
		return
	}
	_ = os.Remove(ix.snapshotPath())
	_ = os.Remove(ix.rowsPath())
	_ = os.Remove(ix.verifiedPath())
}

// snapLayout places the parts of a snapshot of count vectors of dim.
type snapLayout struct {
	dim, count, blocks int
	blockSize          int
}

func layoutFor(dim, count int) snapLayout {
	l := snapLayout{dim: dim, count: count, blocks: (count + snapBlockRows - 1) / snapBlockRows}
	l.blockSize = align64(snapBlockHead + snapBlockRows*(8+4+4+dim))
	return l
}

func (l snapLayout) size() int64 { return l.blockOff(l.blocks) }

func (l snapLayout) rowsSize() int64 { return int64(l.count) * int64(l.dim) * 4 }

func (l snapLayout) blockOff(b int) int64 {
	return int64(snapHeaderSize) + int64(b)*int64(l.blockSize)
}

// Offsets of the arrays inside a block.
const (
	snapIDsOff    = snapBlockHead
	snapScalesOff = snapIDsOff + 8*snapBlockRows
	snapRowCRCOff = snapScalesOff + 4*snapBlockRows
	snapCodesOff  = snapRowCRCOff + 4*snapBlockRows
)

func align64(n int) int { return (n + 63) &^ 63 }

// blockCRC covers a block's row count and everything after its header.
func blockCRC(blk []byte) uint32 {
	return crc32.Update(crc32.Checksum(blk[:4], castagnoli), castagnoli, blk[snapBlockHead:])
}

func encodeHeader(dim int, gen int64, count int) []byte {
	h := make([]byte, snapHeaderSize)
	copy(h, snapshotMagic)
	binary.LittleEndian.PutUint32(h[8:], uint32(dim))
	binary.LittleEndian.PutUint32(h[12:], snapBlockRows)
	binary.LittleEndian.PutUint64(h[16:], uint64(gen))
	binary.LittleEndian.PutUint64(h[24:], uint64(count))
	binary.LittleEndian.PutUint32(h[60:], crc32.Checksum(h[:60], castagnoli))
	return h
}

// openSnapshot maps the snapshot when it is current: same dimension,
// generation and count, and an intact header. Blocks are checked as they
// are scanned.
func (ix *Index) openSnapshot(gen int64, count int) (*snapSet, bool) {
	f, rows, l, ok := ix.openCurrent(os.O_RDONLY, gen, count)
	if !ok {
		return nil, false
	}
	defer f.Close()
	data, err := mapFile(f, l.size())
	if err != nil {
		rows.Close()
		return nil, false
	}
	rowsMap, err := mapRows(rows, l.rowsSize())
	if err != nil {
		rowsMap = nil // rescoring reads rows with pread
	}
	s := &snapSet{data: data, rows: rows, rowsMap: rowsMap, l: l,
		checked: make([]uint32, l.blocks), blockMax: make([]uint32, l.blocks), rowChecked: make([]atomic.Uint64, (l.count+63)/64)}
	s.trustVerified(f, ix.verifiedPath())
	return s, true
}

// openCurrent opens both snapshot files when the header says they hold
// count vectors of the corpus generation gen and they are big enough.
func (ix *Index) openCurrent(flag int, gen int64, count int) (snap, rows *os.File, l snapLayout, ok bool) {
	l = layoutFor(ix.spec.Dim, count)
	if !nativeLittleEndian() {
		return nil, nil, l, false // the files alias memory as little-endian numbers
	}
	snap, err := os.OpenFile(ix.snapshotPath(), flag, 0)
	if err != nil {
		return nil, nil, l, false
	}
	rows, err = os.OpenFile(ix.rowsPath(), flag, 0)
	if err != nil {
		snap.Close()
		return nil, nil, l, false
	}
	fail := func() (*os.File, *os.File, snapLayout, bool) {
		snap.Close()
		rows.Close()
		return nil, nil, l, false
	}
	var h [snapHeaderSize]byte
	// Longer files are current too: rows patched out leave a tail past
	// the count (snappatch.go), which is never read.
	if fi, err := snap.Stat(); err != nil || fi.Size() < l.size() {
		return fail()
	}
	if fi, err := rows.Stat(); err != nil || fi.Size() < l.rowsSize() {
		return fail()
	}
	if _, err := snap.ReadAt(h[:], 0); err != nil || string(h[:8]) != snapshotMagic ||
		binary.LittleEndian.Uint32(h[60:]) != crc32.Checksum(h[:60], castagnoli) ||
		int(binary.LittleEndian.Uint32(h[8:])) != ix.spec.Dim || binary.LittleEndian.Uint32(h[12:]) != snapBlockRows ||
		int64(binary.LittleEndian.Uint64(h[16:])) != gen || binary.LittleEndian.Uint64(h[24:]) != uint64(count) {
		return fail()
	}
	return snap, rows, l, true
}

func nativeLittleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// snapWriter fills the snapshot files block by block from streamed
// vectors, holding one block in memory. limit, when not negative, is the
// number of vectors the files were sized for.
type snapWriter struct {
	f, rows *os.File
	l       snapLayout
	blk     []byte
	f32     []byte // the float32 rows of the current block
	row     int    // rows in blocks already written
	inBlk   int
	limit   int
}

func newSnapWriter(f, rows *os.File, dim, limit int) *snapWriter {
	l := layoutFor(dim, 0)
	return &snapWriter{f: f, rows: rows, l: l, blk: make([]byte, l.blockSize), f32: make([]byte, 0, snapBlockRows*dim*4), limit: limit}
}

// resume continues after count rows already in the files: a partial last
// block is read back and completed in place.
func (w *snapWriter) resume(count int) error {
	w.inBlk = count % snapBlockRows
	w.row = count - w.inBlk
	if w.inBlk == 0 {
		return nil
	}
	if _, err := w.f.ReadAt(w.blk, w.l.blockOff(w.row/snapBlockRows)); err != nil {
		return err
	}
	w.f32 = w.f32[:w.inBlk*w.l.dim*4]
	_, err := w.rows.ReadAt(w.f32, int64(w.row)*int64(w.l.dim)*4)
	return err
}

func (w *snapWriter) total() int { return w.row + w.inBlk }

func (w *snapWriter) add(id int64, vec []byte) error {
	if w.limit >= 0 && w.total() >= w.limit {
		return fmt.Errorf("vector snapshot: more than the %d vectors counted", w.limit)
	}
	dim, r := w.l.dim, w.inBlk
	if len(vec) != 4*dim {
		return fmt.Errorf("vector snapshot: a %d-byte vector in a %d-dimension space", len(vec), dim)
	}
	binary.LittleEndian.PutUint64(w.blk[snapIDsOff+8*r:], uint64(id))
	binary.LittleEndian.PutUint32(w.blk[snapRowCRCOff+4*r:], crc32.Checksum(vec, castagnoli))
	scale := codeRow(w.blk[snapCodesOff+dim*r:snapCodesOff+dim*(r+1)], vec)
	binary.LittleEndian.PutUint32(w.blk[snapScalesOff+4*r:], math.Float32bits(scale))
	w.f32 = append(w.f32, vec...)
	w.inBlk++
	if w.inBlk == snapBlockRows {
		return w.flush()
	}
	return nil
}

// flush writes the current block and its rows (full, or the partial last
// one, which a later add completes and rewrites).
func (w *snapWriter) flush() error {
	if w.inBlk == 0 {
		return nil
	}
	binary.LittleEndian.PutUint32(w.blk[0:], uint32(w.inBlk))
	binary.LittleEndian.PutUint32(w.blk[4:], blockCRC(w.blk))
	if _, err := w.rows.WriteAt(w.f32, int64(w.row)*int64(w.l.dim)*4); err != nil {
		return err
	}
	if _, err := w.f.WriteAt(w.blk, w.l.blockOff(w.row/snapBlockRows)); err != nil {
		return err
	}
	if w.inBlk == snapBlockRows {
		w.row += w.inBlk
		w.inBlk = 0
		w.f32 = w.f32[:0]
		clear(w.blk)
	}
	return nil
}

// codeRow writes the int8 codes of a little-endian float32 row: each
// element rounded to the nearest multiple of the returned scale,
// max|x|/127, so no element is off by more than half of it (the bound
// newI8Query relies on).
func codeRow(codes, vec []byte) float32 {
	maxAbs := float32(0)
	for i := range codes {
		maxAbs = max(maxAbs, abs32(math.Float32frombits(binary.LittleEndian.Uint32(vec[4*i:]))))
	}
	scale := maxAbs / 127
	for i := range codes {
		var c int8
		if scale > 0 {
			c = int8(max(-127, min(127, math.Round(float64(math.Float32frombits(binary.LittleEndian.Uint32(vec[4*i:]))/scale)))))
		}
		codes[i] = byte(c)
	}
	return scale
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// SnapshotProgress reports vectors written to the snapshot so far.
type SnapshotProgress func(done, total int)

// writeSnapshot streams the space's vectors from SQLite into new
// snapshot files (one block of memory, whatever the corpus size) and
// renames them into place, rows first: a reader that pairs new rows with
// the old blocks fails their CRCs and rebuilds.
func (ix *Index) writeSnapshot(ctx context.Context, f store.CorpusFacts, progress SnapshotProgress) error {
	return ix.createSnapshot(f, func(w *snapWriter) error {
		err := ix.St.EachVectorBlock(ctx, ix.fp, ix.spec.Dim, nil, func(b store.VectorBlock) error {
			for i, id := range b.IDs {
				if err := w.add(id, b.Vecs[4*ix.spec.Dim*i:4*ix.spec.Dim*(i+1)]); err != nil {
					return err
				}
			}
			if progress != nil {
				progress(w.total(), f.Vectors)
			}
			return ctx.Err()
		})
		if err != nil {
			return err
		}
		if err := w.flush(); err != nil {
			return err
		}
		if w.total() != f.Vectors {
			return fmt.Errorf("vector snapshot: %d vectors stored, %d counted", w.total(), f.Vectors)
		}
		return nil
	})
}

// createSnapshot writes new snapshot files for f through fill, stamps the
// header and renames them into place.
func (ix *Index) createSnapshot(f store.CorpusFacts, fill func(*snapWriter) error) error {
	if !nativeLittleEndian() {
		return errors.New("vector snapshot: big-endian machines read vectors from SQLite")
	}
	if err := os.MkdirAll(ix.SnapshotDir, 0o700); err != nil {
		return err
	}
	var tmps [2]*os.File
	for i := range tmps {
		t, err := os.CreateTemp(ix.SnapshotDir, ".vectors-*.tmp")
		if err != nil {
			return err
		}
		defer os.Remove(t.Name())
		defer t.Close()
		tmps[i] = t
	}
	snap, rows := tmps[0], tmps[1]
	l := layoutFor(ix.spec.Dim, f.Vectors)
	if err := snap.Truncate(l.size()); err != nil {
		return err
	}
	if err := fill(newSnapWriter(snap, rows, ix.spec.Dim, f.Vectors)); err != nil {
		return err
	}
	if _, err := snap.WriteAt(encodeHeader(ix.spec.Dim, f.Generation, f.Vectors), 0); err != nil {
		return err
	}
	for _, t := range tmps {
		if err := t.Close(); err != nil {
			return err
		}
	}
	if err := os.Rename(rows.Name(), ix.rowsPath()); err != nil {
		return err
	}
	return os.Rename(snap.Name(), ix.snapshotPath())
}
