package research

import (
	"os"

	"golang.org/x/sys/unix"
)

// willNeedFile asks the kernel to read f's bytes [off, off+n) into the
// page cache in the background: rows that are not cached are then read
// with one request in flight per row rather than one at a time (a query
// rescoring a few hundred rows of a rows file evicted from the cache
// waited on each read in turn). For cached pages it is a lookup.
func willNeedFile(f *os.File, off, n int64) {
	_ = unix.Fadvise(int(f.Fd()), off, n, unix.FADV_WILLNEED)
}
