//go:build !unix

package research

import (
	"io"
	"os"
)

// mapFile reads the file where mmap is not available.
func mapFile(f *os.File, size int64) ([]byte, error) {
	b := make([]byte, size)
	_, err := io.ReadFull(f, b)
	return b, err
}

func unmapFile([]byte) {}
