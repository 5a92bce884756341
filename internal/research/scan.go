package research

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// scanBlockRows is the unit of work of the parallel float32 scan: small
// enough that workers finish together, big enough that handing out
// blocks costs nothing measurable.
const scanBlockRows = 512

// parallelMinBytes is where a second worker starts to pay: below it
// waking a goroutine on another core (tens of µs when its thread has
// parked) costs about what it saves. Measured beside the read floor: an
// int8 scan of 10k 512-d rows (5 MB) took 2.2–2.3× the floor on one
// worker against 2.9–3.1× on two; the float32 scan of the same rows
// (20 MB) and everything from 100k rows up gain from two.
const parallelMinBytes = 16 << 20

// scanWorkers is how many goroutines scan bytes spread over blocks.
func scanWorkers(bytes int64, blocks int) int {
	if bytes < parallelMinBytes {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), blocks))
}

// parallelBlocks runs fn(worker, block) for blocks 0..n-1 on workers
// goroutines that take the next block as they finish one, so a worker
// slowed down by a busy core does not hold the others up.
func parallelBlocks(workers, n int, fn func(w, b int)) {
	parallelBlocksShared(scanShare{}, workers, n, fn)
}

// scanShare is how a scan shares the cores with work running beside it
// (the keyword query runs in SQLite on one core while the vectors are
// scanned): the scan starts with all cores but one, and takes the last
// when assist is closed (the keyword query is done). Three busy threads
// on two cores made both sides wait for each other: a cold query at 1M
// chunks took 110–125 ms, against 91–96 ms with the scan on one core
// until the keyword side finishes.
type scanShare struct{ assist <-chan struct{} }

type scanShareKey struct{}

// withScanShare marks ctx's scans as running beside work that closes
// assist when it is done.
func withScanShare(ctx context.Context, assist <-chan struct{}) context.Context {
	return context.WithValue(ctx, scanShareKey{}, scanShare{assist})
}

// split returns how many of workers start now; the rest join on assist.
func (sh scanShare) split(workers int) int {
	if sh.assist == nil || workers <= 1 {
		return workers
	}
	return workers - 1
}

func shareOf(ctx context.Context) scanShare {
	sh, _ := ctx.Value(scanShareKey{}).(scanShare)
	return sh
}

// parallelBlocksShared is parallelBlocks whose last workers join when
// sh.assist is closed, if blocks are left by then.
func parallelBlocksShared(sh scanShare, workers, n int, fn func(w, b int)) {
	if workers <= 1 {
		for b := 0; b < n; b++ {
			fn(0, b)
		}
		return
	}
	now := sh.split(workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	allTaken := make(chan struct{})
	var taken sync.Once
	run := func(w int) {
		for {
			b := int(next.Add(1) - 1)
			if b >= n {
				taken.Do(func() { close(allTaken) })
				return
			}
			fn(w, b)
		}
	}
	// Worker 0 is the calling goroutine: it starts at once, while the
	// others wait to be scheduled.
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w >= now {
				select {
				case <-sh.assist:
				case <-allTaken:
					return
				}
			}
			run(w)
		}()
	}
	run(0)
	wg.Wait()
}

// topList keeps the n best (score, key) pairs in a heap whose root is the
// worst kept; equal scores keep the smaller key, whatever order rows come
// in. Most rows of a scan lose against the root at one comparison.
type topList struct {
	n int
	s []Scored
}

func newTopList(n int) *topList { return &topList{n: n, s: make([]Scored, 0, n)} }

// worse reports whether a ranks below b.
func worse(a, b Scored) bool { return a.Score < b.Score || a.Score == b.Score && a.ID > b.ID }

func (t *topList) add(id int64, score float64) {
	if t.n <= 0 {
		return
	}
	x := Scored{ID: id, Score: score}
	if len(t.s) < t.n {
		t.s = append(t.s, x)
		for i := len(t.s) - 1; i > 0; {
			p := (i - 1) / 2
			if !worse(t.s[i], t.s[p]) {
				break
			}
			t.s[i], t.s[p] = t.s[p], t.s[i]
			i = p
		}
		return
	}
	if !worse(t.s[0], x) {
		return
	}
	t.s[0] = x
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(t.s) && worse(t.s[l], t.s[m]) {
			m = l
		}
		if r := l + 1; r < len(t.s) && worse(t.s[r], t.s[m]) {
			m = r
		}
		if m == i {
			return
		}
		t.s[i], t.s[m] = t.s[m], t.s[i]
		i = m
	}
}

// mergeTop joins per-worker lists into the n best, by score then id.
func mergeTop(parts []*topList, n int) []Scored {
	var all []Scored
	for _, p := range parts {
		all = append(all, p.s...)
	}
	sortScored(all)
	if len(all) > n {
		all = all[:n]
	}
	return all
}

func sortScored(s []Scored) {
	slices.SortFunc(s, func(a, b Scored) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// FlatTopK scans one contiguous float32 matrix on all cores and keeps the
// n best (ties by id).
func FlatTopK(ids []int64, flat []float32, dim int, qv []float32, n int) []Scored {
	rows := len(ids)
	blocks := (rows + scanBlockRows - 1) / scanBlockRows
	workers := scanWorkers(int64(len(flat))*4, blocks)
	parts := make([]*topList, workers)
	for w := range parts {
		parts[w] = newTopList(n)
	}
	parallelBlocks(workers, blocks, func(w, b int) {
		top := parts[w]
		for r := b * scanBlockRows; r < min(rows, (b+1)*scanBlockRows); r++ {
			sc := float64(dot(flat[r*dim:(r+1)*dim], qv))
			if len(top.s) == top.n && sc < top.s[0].Score {
				continue
			}
			top.add(ids[r], sc)
		}
	})
	return mergeTop(parts, n)
}
