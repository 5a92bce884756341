//go:build unix

package research

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWillNeedBounds hints ranges that start inside a page and end at or
// past the end of the mapping: the hint is rounded to whole pages and
// clipped to the mapping, never out of it.
func TestWillNeedBounds(t *testing.T) {
	page := int64(os.Getpagesize())
	size := 3*page + 100
	path := filepath.Join(t.TempDir(), "rows")
	if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := mapRows(f, size)
	if err != nil {
		t.Fatal(err)
	}
	defer unmapFile(b)
	for _, r := range [][2]int64{{0, 1}, {page - 1, 2}, {page + 7, page}, {3 * page, 100}, {size - 1, 1}, {size - 50, 2048}} {
		willNeed(b, r[0], r[1])
	}
}
