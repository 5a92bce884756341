package research

import (
	"encoding/binary"
)

// A write that deletes vectors (a replaced or removed document) is
// followed by taking their rows out of the snapshot files in place
// instead of rewriting them from SQLite: at 100k chunks a rewrite reads
// and re-quantizes every vector, a patch touches the removed rows, the
// last rows and their blocks. Each removed row is overwritten by the
// current last row (its id, scale, row CRC, codes and float32 row move
// together) and the count shrinks by one, so the files stay dense and
// the scan is unchanged; only the order of the rows differs from a
// rewrite's, which no result depends on (ties are broken by chunk id).
//
// The files never shrink: another process (the daemon) may have them
// mapped, and a truncated page under its scan would kill it (SIGBUS).
// The tail past the count is ignored (openCurrent accepts longer files)
// and overwritten by later appends. A query running in another process
// while the rows move may read a row half-moved: a checksum catches it
// (the reader rebuilds the files) unless that process had checked the
// block already, when one score of that one query is off; the query
// after the write sees the new generation and maps the files again.

// loadPositions reads the row position of every chunk id in the files
// (the id lists of the blocks: 8 bytes a row), once per appender.
func (a *snapAppender) loadPositions() error {
	if a.pos != nil {
		return nil
	}
	count := a.w.total()
	pos := make(map[int64]int, count)
	buf := make([]byte, 8*snapBlockRows)
	for b := 0; b*snapBlockRows < count; b++ {
		n := min(snapBlockRows, count-b*snapBlockRows)
		if _, err := a.f.ReadAt(buf[:8*n], a.w.l.blockOff(b)+snapIDsOff); err != nil {
			return err
		}
		for r := 0; r < n; r++ {
			pos[int64(binary.LittleEndian.Uint64(buf[8*r:]))] = b*snapBlockRows + r
		}
	}
	a.pos = pos
	return nil
}

// removeRows takes the rows of ids out of the files (see above) and
// leaves the writer after the new last row; the header is the caller's
// to stamp. An id the files do not hold is errNotAppendable, found
// before anything is written.
func (a *snapAppender) removeRows(ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	if err := a.loadPositions(); err != nil {
		return err
	}
	for _, id := range ids {
		if _, ok := a.pos[id]; !ok {
			return errNotAppendable
		}
	}
	l := a.w.l
	dim := l.dim
	rowBytes := int64(dim) * 4
	count := a.w.total()
	blocks := map[int][]byte{}
	block := func(b int) ([]byte, error) {
		if blk, ok := blocks[b]; ok {
			return blk, nil
		}
		blk := make([]byte, l.blockSize)
		if _, err := a.f.ReadAt(blk, l.blockOff(b)); err != nil {
			return nil, err
		}
		blocks[b] = blk
		return blk, nil
	}
	// The parts of a row inside a block: offset and size per row.
	parts := [][2]int{{snapIDsOff, 8}, {snapScalesOff, 4}, {snapRowCRCOff, 4}, {snapCodesOff, dim}}
	row := make([]byte, rowBytes)
	for _, id := range ids {
		p, last := a.pos[id], count-1
		dst, err := block(p / snapBlockRows)
		if err != nil {
			return err
		}
		src, err := block(last / snapBlockRows)
		if err != nil {
			return err
		}
		pr, lr := p%snapBlockRows, last%snapBlockRows
		if p != last {
			for _, pt := range parts {
				copy(dst[pt[0]+pt[1]*pr:pt[0]+pt[1]*(pr+1)], src[pt[0]+pt[1]*lr:pt[0]+pt[1]*(lr+1)])
			}
			if _, err := a.rows.ReadAt(row, int64(last)*rowBytes); err != nil {
				return err
			}
			if _, err := a.rows.WriteAt(row, int64(p)*rowBytes); err != nil {
				return err
			}
			a.pos[int64(binary.LittleEndian.Uint64(dst[snapIDsOff+8*pr:]))] = p
		}
		for _, pt := range parts {
			clear(src[pt[0]+pt[1]*lr : pt[0]+pt[1]*(lr+1)])
		}
		delete(a.pos, id)
		count--
	}
	for b, blk := range blocks {
		n := min(snapBlockRows, count-b*snapBlockRows)
		if n <= 0 {
			continue // past the count: never read, refilled by appends
		}
		binary.LittleEndian.PutUint32(blk[0:], uint32(n))
		binary.LittleEndian.PutUint32(blk[4:], blockCRC(blk))
		if _, err := a.f.WriteAt(blk, l.blockOff(b)); err != nil {
			return err
		}
	}
	clear(a.w.blk)
	a.w.f32 = a.w.f32[:0]
	return a.w.resume(count)
}
