package research

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// mappedKB is the resident size of the mapping that starts at b, from
// /proc/self/smaps.
func mappedKB(t *testing.T, b []byte) int {
	t.Helper()
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	start := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(&b[0])))
	in := false
	for _, l := range strings.Split(string(smaps), "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			in = strings.HasPrefix(f[0], start)
			continue
		}
		if in && strings.HasPrefix(l, "Rss:") {
			kb, _ := strconv.Atoi(strings.Fields(l)[1])
			return kb
		}
	}
	t.Fatalf("no mapping at %s in /proc/self/smaps", start)
	return 0
}

// TestFirstRescoreMapsNoRows checks that a process's first read of a
// row does not go through the mapping: a fault would map the page-cache
// folio around the row (up to 2 MB on recent kernels), so a one-query
// CLI process showed hundreds of MB of the rows file resident. Rows read
// again come from the mapping, with the same scores.
func TestFirstRescoreMapsNoRows(t *testing.T) {
	const dim = 512
	r := rand.New(rand.NewSource(11))
	vecs := make([][]float32, 3000)
	for i := range vecs {
		vecs[i] = unitVec(r, dim)
	}
	s := rawSnapshot(t, dim, vecs)
	if s.rowsMap == nil {
		t.Fatal("rows file not mapped")
	}
	q := unitVec(r, dim)
	first, _, err := s.topKStats(scanShare{}, q, 50, 1)
	if err != nil {
		t.Fatal(err)
	}
	if kb := mappedKB(t, s.rowsMap); kb != 0 {
		t.Fatalf("%d kB of the rows file resident after the first query, want 0", kb)
	}
	again, _, err := s.topKStats(scanShare{}, q, 50, 1)
	if err != nil || fmt.Sprint(again) != fmt.Sprint(first) {
		t.Fatalf("second query through the mapping: %v (%v)\nfirst: %v", again, err, first)
	}
	if kb := mappedKB(t, s.rowsMap); kb == 0 {
		t.Fatal("the second query did not read the rows through the mapping")
	}
}
