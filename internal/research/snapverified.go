package research

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// Checking every block's CRC in every process cost a quarter of a cold
// query's scan (CRC-32C runs at ~20 GB/s per core against ~10 GB/s of
// int8 dot products). Once a process has checked every block, it writes
// vectors-<space>.ok holding the blocks file's stamp (size, modification time, inode);
// a later process that finds the same stamp skips the block checks. Any
// write to the file (an append, a rebuild, a stray byte) changes the
// stamp, and the blocks are checked again. The float32 rows behind every
// result are still checked, each the first time a process rescores it.

// verifiedMinAge is how old the blocks file must be before it is marked:
// file times tick at a few milliseconds, so a change within the same tick
// as the last write would keep the stamp; past this age any change moves
// the modification time.
const verifiedMinAge = 2 * time.Second

func (ix *Index) verifiedPath() string {
	return filepath.Join(ix.SnapshotDir, "vectors-"+ix.fp+".ok")
}

// snapStamp identifies the file's contents as last written.
func snapStamp(fi os.FileInfo) string {
	return fmt.Sprintf("%s %d %d %s\n", snapshotMagic, fi.Size(), fi.ModTime().UnixNano(), fileIdentity(fi))
}

// trustVerified marks every block checked when the .ok file carries the
// stamp of f, the blocks file just mapped.
func (s *snapSet) trustVerified(f *os.File, okPath string) {
	fi, err := f.Stat()
	if err != nil {
		return
	}
	s.stamp, s.okPath, s.mtime = snapStamp(fi), okPath, fi.ModTime()
	if b, err := os.ReadFile(okPath); err == nil && string(b) == s.stamp {
		for i := range s.checked {
			s.checked[i] = 1
		}
		s.marked.Store(true)
	}
}

// markVerified writes the .ok file once every block has been checked in
// this process (after a scan that found them intact).
func (s *snapSet) markVerified() {
	if s.okPath == "" || s.marked.Load() || time.Since(s.mtime) < verifiedMinAge {
		return
	}
	for i := range s.checked {
		if atomic.LoadUint32(&s.checked[i]) == 0 {
			return
		}
	}
	if !s.marked.CompareAndSwap(false, true) {
		return
	}
	// A cache of a cache: failing to write it only costs the next
	// process the checks.
	tmp, err := os.CreateTemp(filepath.Dir(s.okPath), ".vectors-*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(s.stamp)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), s.okPath) != nil {
		os.Remove(tmp.Name())
	}
}
