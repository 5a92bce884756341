package research

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"os"
	"sync/atomic"
	"time"
	"unsafe"
)

// snapSet is an open snapshot (see snapshot.go): the mapped blocks and
// the float32 rows file.
type snapSet struct {
	data []byte
	rows *os.File
	// rowsMap is the rows file mapped for random access (nil where
	// mapping is not available: rows are read with pread).
	rowsMap []byte
	l       snapLayout
	// checked[b] is 1 once block b's CRC matched in this process (or all
	// are, from the .ok file: see snapverified.go).
	checked []uint32
	// blockMax[b] holds the bits of block b's largest code scale once a
	// scan has read it (0 before).
	blockMax []uint32
	// rowChecked has bit r set once float32 row r's CRC matched in this
	// process: a daemon rescoring the same rows checks them once.
	rowChecked []atomic.Uint64
	sink       atomic.Uint32 // keeps touchRows' reads
	// stamp of the mapped blocks file, written to okPath once every block
	// is checked; marked when it is (or was found) there.
	stamp, okPath string
	mtime         time.Time
	marked        atomic.Bool
}

// poolFactor caps the rows rescored per wanted result: where the bound
// cannot separate the top n from the rest (scores packed closer than the
// quantization error), the best poolFactor·n upper bounds are rescored
// and the order is as good as int8 ranking of that pool allows.
const poolFactor = 4

// rescoreStats says what a topK did: the rows that could still rank in
// the top n after the int8 scan (at most the pool), how many of them were
// rescored, and whether the result is proven exact.
type rescoreStats struct {
	candidates, rescored int
	exact                bool
}

// topK returns the n best rows by float32 dot product with qv. Every
// row's int8 code is scored; with e its row's error bound (newI8Query), a
// row's float32 score lies within approx ± e. The n-th best lower bound L
// is then a floor under the exact n-th score, so only rows whose upper
// bound reaches L can rank (boundsel.go). The n best upper bounds are
// rescored with their float32 rows, then the others whose upper bound
// reaches the n-th exact score so far: the result is exactly the float32
// scan's unless more than poolFactor·n rows were within the bound of it
// (rescoreStats.exact says which). It fails with errSnapshotDamaged when
// a checksum does not match.
func (s *snapSet) topK(sh scanShare, qv []float32, n int) ([]Scored, error) {
	res, _, err := s.topKStats(sh, qv, n, scanWorkers(int64(s.l.count)*int64(s.l.dim), s.l.blocks))
	return res, err
}

// topKStats is topK on the given number of workers, saying what it did.
func (s *snapSet) topKStats(sh scanShare, qv []float32, n, workers int) ([]Scored, rescoreStats, error) {
	var st rescoreStats
	if n <= 0 || s.l.count == 0 {
		return nil, st, nil
	}
	q := newI8Query(qv)
	workers = max(1, min(workers, s.l.blocks))
	shared := new(sharedFloor)
	sel := make([]*boundSelect, workers)
	for w := range sel {
		sel[w] = newBoundSelect(n, n*poolFactor, shared)
	}
	err := s.scanCodes(sh, workers, q, func(w, base int, scores []int32, scales []float32, maxScale float32) {
		sel[w].block(base, scores, scales, maxScale, q.scale, float32(q.errPerScale))
	})
	if err != nil {
		return nil, st, err
	}
	s.markVerified()
	cands, poolFloor := mergeBounds(sel, n, n*poolFactor)
	st.candidates = len(cands)

	// Rescore the n best upper bounds; the n-th exact score among them is
	// a floor under the final one, so only the rows whose upper bound
	// reaches it are rescored next.
	exact := newTopList(n)
	add := func(rows []boundCand) error {
		got, err := s.rescore(workers, q, rows)
		for _, x := range got {
			exact.add(x.ID, x.Score)
		}
		st.rescored += len(rows)
		return err
	}
	first := cands
	if len(cands) > n {
		first = topKeys(cands, n, new([]boundCand))
	}
	if err := add(first); err != nil {
		return nil, st, err
	}
	var more []boundCand
	for _, c := range cands[len(first):] {
		if float64(c.ub()) >= exact.s[0].Score {
			more = append(more, c)
		}
	}
	if err := add(more); err != nil {
		return nil, st, err
	}
	// Exact unless the pool let go of a row that could have ranked.
	st.exact = len(exact.s) == 0 || float64(poolFloor) < exact.s[0].Score
	out := exact.s
	sortScored(out)
	return out, st, nil
}

// scanCodes scores every row's int8 code against q on workers, handing
// each block's dot products to fn with the block's first global row and
// its scales. A block's CRC is computed in the pass that scores it, a few
// KB ahead of the dot products, so the bytes are read from memory once
// and checked from L1: verifying costs CRC compute (~20 GB/s per core),
// not a second trip through memory.
func (s *snapSet) scanCodes(sh scanShare, workers int, q *i8Query, fn func(w, base int, scores []int32, scales []float32, maxScale float32)) error {
	dim := s.l.dim
	var damaged atomic.Bool
	bufs := make([][snapBlockRows]int32, workers)
	parallelBlocksShared(sh, workers, s.l.blocks, func(w, b int) {
		if damaged.Load() {
			return
		}
		off := s.l.blockOff(b)
		blk := s.data[off : off+int64(s.l.blockSize)]
		rows := int(binary.LittleEndian.Uint32(blk))
		if rows > snapBlockRows {
			damaged.Store(true)
			return
		}
		scales := unsafe.Slice((*float32)(unsafe.Pointer(&blk[snapScalesOff])), rows)
		codes := unsafe.Slice((*int8)(unsafe.Pointer(&blk[snapCodesOff])), rows*dim)
		scores := bufs[w][:rows]
		if atomic.LoadUint32(&s.checked[b]) != 0 {
			dotI8Rows(codes, dim, q, scores)
		} else {
			crc := crc32.Update(crc32.Checksum(blk[:4], castagnoli), castagnoli, blk[snapBlockHead:snapCodesOff])
			group := max(4, 4096/dim) &^ 3
			for r0 := 0; r0 < rows; r0 += group {
				r1 := min(rows, r0+group)
				crc = crc32.Update(crc, castagnoli, blk[snapCodesOff+r0*dim:snapCodesOff+r1*dim])
				dotI8Rows(codes[r0*dim:r1*dim], dim, q, scores[r0:r1])
			}
			if crc32.Update(crc, castagnoli, blk[snapCodesOff+rows*dim:]) != binary.LittleEndian.Uint32(blk[4:]) {
				damaged.Store(true)
				return
			}
			atomic.StoreUint32(&s.checked[b], 1)
		}
		fn(w, b*snapBlockRows, scores, scales, s.blockMaxScale(b, scales))
	})
	if damaged.Load() {
		return errSnapshotDamaged
	}
	return nil
}

// blockMaxScale is block b's largest code scale, found the first time a
// scan reads the block in this process.
func (s *snapSet) blockMaxScale(b int, scales []float32) float32 {
	if m := atomic.LoadUint32(&s.blockMax[b]); m != 0 {
		return math.Float32frombits(m)
	}
	var m0, m1, m2, m3 float32
	i := 0
	for ; i+4 <= len(scales); i += 4 {
		m0, m1, m2, m3 = max(m0, scales[i]), max(m1, scales[i+1]), max(m2, scales[i+2]), max(m3, scales[i+3])
	}
	for ; i < len(scales); i++ {
		m0 = max(m0, scales[i])
	}
	m := max(m0, m1, m2, m3)
	atomic.StoreUint32(&s.blockMax[b], math.Float32bits(m)) // a block of zero vectors stays 0: looked at again, harmlessly
	return m
}

// rescore returns the float32 scores of the candidate rows (keys are
// global rows), keyed by chunk id. Each row's CRC is checked the first
// time this process reads it. Candidates are scattered over the rows
// file, so this is bound by latency: it is split over the workers when
// there are enough.
//
// A row read before in this process is read through the mapping. A row
// read for the first time is read with pread instead: a page fault would
// map the whole page-cache folio around it (up to 2 MB on recent kernels,
// whatever the advice), and a one-query process at 1M chunks showed
// 590 MB of the rows file resident for 400 rows. All first reads are
// hinted to the kernel together beforehand, so rows that left the page
// cache are read from disk in parallel rather than one at a time.
func (s *snapSet) rescore(workers int, q *i8Query, cands []boundCand) ([]Scored, error) {
	const perPart = 32
	dim := s.l.dim
	rowBytes := int64(dim) * 4
	out := make([]Scored, len(cands))
	parts := (len(cands) + perPart - 1) / perPart
	var damaged atomic.Bool
	if len(cands) < 64 {
		workers = 1 // a few µs: less than waking a second goroutine
	}
	for _, c := range cands {
		if !s.rowSeen(c.row()) {
			willNeedFile(s.rows, int64(c.row())*rowBytes, rowBytes)
		}
	}
	parallelBlocks(min(workers, parts), parts, func(_, p int) {
		part := cands[p*perPart : min(len(cands), (p+1)*perPart)]
		if s.rowsMap != nil {
			s.touchRows(part)
		}
		var buf []byte
		for i, c := range part {
			row := c.row()
			b, r := row/snapBlockRows, row%snapBlockRows
			blk := s.data[s.l.blockOff(b):]
			at := int64(row) * rowBytes
			seen := s.rowSeen(row)
			var raw []byte
			if seen && s.rowsMap != nil {
				raw = s.rowsMap[at : at+rowBytes]
			} else {
				if buf == nil {
					buf = make([]byte, rowBytes)
				}
				if _, err := s.rows.ReadAt(buf, at); err != nil {
					damaged.Store(true)
					return
				}
				raw = buf
			}
			if !seen {
				if crc32.Checksum(raw, castagnoli) != binary.LittleEndian.Uint32(blk[snapRowCRCOff+4*r:]) {
					damaged.Store(true)
					return
				}
				s.rowChecked[row/64].Or(uint64(1) << (row % 64))
			}
			vec := unsafe.Slice((*float32)(unsafe.Pointer(&raw[0])), dim)
			out[p*perPart+i] = Scored{ID: int64(binary.LittleEndian.Uint64(blk[snapIDsOff+8*r:])), Score: float64(dot(vec, q.f32))}
		}
	})
	if damaged.Load() {
		return nil, errSnapshotDamaged
	}
	return out, nil
}

// rowSeen reports whether this process has read (and checked) row r.
func (s *snapSet) rowSeen(r int) bool {
	return s.rowChecked[r/64].Load()&(1<<(r%64)) != 0
}

// touchRows reads a byte of every cache line of the mapped rows among
// cands (those read before) before any is scored: the loads do not
// depend on each other, so the cache and TLB misses of rows scattered
// over the file overlap instead of being paid one row at a time (~1/3
// of rescoring from memory).
func (s *snapSet) touchRows(cands []boundCand) {
	rowBytes := int64(s.l.dim) * 4
	var sink byte
	for _, c := range cands {
		if !s.rowSeen(c.row()) {
			continue // read with pread
		}
		at := int64(c.row()) * rowBytes
		for off := at; off < at+rowBytes; off += 64 {
			sink += s.rowsMap[off]
		}
	}
	s.sink.Store(uint32(sink))
}

// close releases the mappings and the rows file.
func (s *snapSet) close() {
	unmapFile(s.data)
	unmapFile(s.rowsMap)
	s.rows.Close()
}
