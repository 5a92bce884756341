//go:build !unix

package research

import (
	"errors"
	"io"
	"os"
)

// mapFile reads the file where mmap is not available.
func mapFile(f *os.File, size int64) ([]byte, error) {
	b := make([]byte, size)
	_, err := io.ReadFull(f, b)
	return b, err
}

// mapRows does not map here: rescoring reads rows with pread.
func mapRows(*os.File, int64) ([]byte, error) { return nil, nil }

func unmapFile([]byte) {}

// lockFile is not available here: ingests rewrite the snapshot at their
// end instead of appending to it.
func lockFile(*os.File) error { return errors.New("no file locks") }

// fileIdentity is empty here: the stamp is the size and modification time.
func fileIdentity(os.FileInfo) string { return "" }
