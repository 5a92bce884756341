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
	"unsafe"

	"github.com/askygo/asky/internal/store"
)

// The vector snapshot is a cache of the active space's vectors in one
// file, mapped read-only by each query process, so a cold `corpus query`
// reads it at page-cache speed instead of decoding every vector through
// SQLite. SQLite stays the source of truth: the file is stamped with the
// corpus generation and vector count, written to a temp file and renamed,
// and any mismatch, damage or read error is a cache miss that rebuilds it.
//
// Layout (little-endian):
//
//	header  64 B: magic, dim, rows per block, generation, count, CRC-32C of the first 60 bytes
//	blocks  each snapBlockRows rows, all full but the last:
//	        n, CRC-32C of the coded part, then ids int64, scales float32,
//	        row CRCs uint32, int8 codes (the coded part, 64-byte aligned),
//	        then the float32 rows
//
// The scan reads only the coded parts (a quarter of the float32 bytes):
// each row is an int8 code with a per-row scale, scored against the query,
// and then the best candidates are rescored with their float32 rows, so
// the final order is exact. A block's CRC is checked the first time a
// process scans it, in the same pass; a float32 row's CRC when it is
// rescored. A flipped byte anywhere a result comes from is therefore
// caught, and the file is rebuilt from SQLite. Blocks are self-contained,
// so an ingest appends to the file as it writes (snapAppender) instead of
// rewriting it.
const (
	snapshotMagic  = "ASKYVEC3"
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

// snapLayout places the parts of a snapshot of count vectors of dim.
type snapLayout struct {
	dim, count, blocks int
	// codeSize is the checksummed part of a block; its float32 rows
	// follow, up to blockSize.
	codeSize, blockSize int
}

func layoutFor(dim, count int) snapLayout {
	l := snapLayout{dim: dim, count: count, blocks: (count + snapBlockRows - 1) / snapBlockRows}
	l.codeSize = align64(snapBlockHead + snapBlockRows*(8+4+4+dim))
	l.blockSize = l.codeSize + snapBlockRows*dim*4
	return l
}

func (l snapLayout) size() int64 { return l.blockOff(l.blocks) }

func (l snapLayout) blockOff(b int) int64 {
	return int64(snapHeaderSize) + int64(b)*int64(l.blockSize)
}

// rowOff is where the float32 row of a global row index starts.
func (l snapLayout) rowOff(row int) int64 {
	return l.blockOff(row/snapBlockRows) + int64(l.codeSize) + int64(row%snapBlockRows)*int64(l.dim)*4
}

// Offsets of the arrays inside a block.
const (
	snapIDsOff    = snapBlockHead
	snapScalesOff = snapIDsOff + 8*snapBlockRows
	snapRowCRCOff = snapScalesOff + 4*snapBlockRows
	snapCodesOff  = snapRowCRCOff + 4*snapBlockRows
)

func align64(n int) int { return (n + 63) &^ 63 }

// blockCRC covers a block's row count and its coded part (blk is that
// part).
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
	f, l, ok := ix.openCurrent(os.O_RDONLY, gen, count)
	if !ok {
		return nil, false
	}
	defer f.Close()
	data, err := mapFile(f, l.size())
	if err != nil {
		return nil, false
	}
	return &snapSet{data: data, l: l, checked: make([]uint32, l.blocks)}, true
}

// openCurrent opens the snapshot file when its header says it holds
// count vectors of the corpus generation gen and its size agrees.
func (ix *Index) openCurrent(flag int, gen int64, count int) (*os.File, snapLayout, bool) {
	l := layoutFor(ix.spec.Dim, count)
	if !nativeLittleEndian() {
		return nil, l, false // the file aliases memory as little-endian numbers
	}
	f, err := os.OpenFile(ix.snapshotPath(), flag, 0)
	if err != nil {
		return nil, l, false
	}
	var h [snapHeaderSize]byte
	fi, err := f.Stat()
	if err != nil || fi.Size() != l.size() {
		f.Close()
		return nil, l, false
	}
	if _, err := f.ReadAt(h[:], 0); err != nil || string(h[:8]) != snapshotMagic ||
		binary.LittleEndian.Uint32(h[60:]) != crc32.Checksum(h[:60], castagnoli) ||
		int(binary.LittleEndian.Uint32(h[8:])) != ix.spec.Dim || binary.LittleEndian.Uint32(h[12:]) != snapBlockRows ||
		int64(binary.LittleEndian.Uint64(h[16:])) != gen || binary.LittleEndian.Uint64(h[24:]) != uint64(count) {
		f.Close()
		return nil, l, false
	}
	return f, l, true
}

func nativeLittleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// snapWriter fills a snapshot file block by block from streamed vectors,
// holding one block in memory. limit, when not negative, is the number of
// vectors the file was sized for.
type snapWriter struct {
	f     *os.File
	l     snapLayout
	blk   []byte
	row   int // rows in blocks already written
	inBlk int
	limit int
}

func newSnapWriter(f *os.File, dim, limit int) *snapWriter {
	l := layoutFor(dim, 0)
	return &snapWriter{f: f, l: l, blk: make([]byte, l.blockSize), limit: limit}
}

// resume continues after count rows already in the file: a partial last
// block is read back and completed in place.
func (w *snapWriter) resume(count int) error {
	w.inBlk = count % snapBlockRows
	w.row = count - w.inBlk
	if w.inBlk == 0 {
		return nil
	}
	_, err := w.f.ReadAt(w.blk, w.l.blockOff(w.row/snapBlockRows))
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
	maxAbs := float32(0)
	for i := 0; i < dim; i++ {
		maxAbs = max(maxAbs, abs32(math.Float32frombits(binary.LittleEndian.Uint32(vec[4*i:]))))
	}
	scale := maxAbs / 127
	binary.LittleEndian.PutUint32(w.blk[snapScalesOff+4*r:], math.Float32bits(scale))
	codes := w.blk[snapCodesOff+dim*r : snapCodesOff+dim*(r+1)]
	for i := range codes {
		var c int8
		if scale > 0 {
			c = int8(max(-127, min(127, math.Round(float64(math.Float32frombits(binary.LittleEndian.Uint32(vec[4*i:]))/scale)))))
		}
		codes[i] = byte(c)
	}
	copy(w.blk[w.l.codeSize+4*dim*r:], vec)
	w.inBlk++
	if w.inBlk == snapBlockRows {
		return w.flush()
	}
	return nil
}

// flush writes the current block (full, or the partial last one, which
// a later add completes and rewrites).
func (w *snapWriter) flush() error {
	if w.inBlk == 0 {
		return nil
	}
	binary.LittleEndian.PutUint32(w.blk[0:], uint32(w.inBlk))
	binary.LittleEndian.PutUint32(w.blk[4:], blockCRC(w.blk[:w.l.codeSize]))
	if _, err := w.f.WriteAt(w.blk, w.l.blockOff(w.row/snapBlockRows)); err != nil {
		return err
	}
	if w.inBlk == snapBlockRows {
		w.row += w.inBlk
		w.inBlk = 0
		clear(w.blk)
	}
	return nil
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// SnapshotProgress reports vectors written to the snapshot so far.
type SnapshotProgress func(done, total int)

// writeSnapshot streams the space's vectors from SQLite into a new
// snapshot file (one block of memory, whatever the corpus size) and
// renames it into place.
func (ix *Index) writeSnapshot(ctx context.Context, f store.CorpusFacts, progress SnapshotProgress) error {
	if !nativeLittleEndian() {
		return errors.New("vector snapshot: big-endian machines read vectors from SQLite")
	}
	if err := os.MkdirAll(ix.SnapshotDir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(ix.SnapshotDir, ".vectors-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := tmp.Truncate(layoutFor(ix.spec.Dim, f.Vectors).size()); err != nil {
		return err
	}
	w := newSnapWriter(tmp, ix.spec.Dim, f.Vectors)
	err = ix.St.EachVectorBlock(ctx, ix.fp, ix.spec.Dim, nil, func(b store.VectorBlock) error {
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
	if _, err := tmp.WriteAt(encodeHeader(ix.spec.Dim, f.Generation, f.Vectors), 0); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), ix.snapshotPath())
}
