package research

import (
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
)

// The int8 scan keeps, per worker, the rows whose upper bound (approximate
// score + error bound) may still reach the top n. The floor they are held
// to is the n-th best lower bound seen so far: no row whose upper bound is
// below it can rank, because n rows are known to score at least that.

// boundCand is a row whose float32 score may reach the top n, with the
// upper bound of that score: the bound's order key (orderKey) above the
// row, so one integer compare orders candidates by bound, ties by row,
// and the selections below need no key function.
type boundCand uint64

func newCand(row int, ub float32) boundCand {
	return boundCand(uint64(orderKey(ub))<<32 | uint64(uint32(row)))
}

func (c boundCand) row() int        { return int(uint32(c)) }
func (c boundCand) ub() float32     { return keyFloat(uint32(c >> 32)) }
func candFloor(f float32) boundCand { return boundCand(uint64(orderKey(f)) << 32) }

// orderKey maps a float32 (not NaN) to a uint32 in the same order: the
// sign bit flipped for positives, every bit for negatives. -0 maps as +0.
func orderKey(f float32) uint32 {
	if f == 0 {
		f = 0
	}
	b := math.Float32bits(f)
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// keyFloat is orderKey's inverse.
func keyFloat(k uint32) float32 {
	if k>>31 != 0 {
		return math.Float32frombits(k &^ (1 << 31))
	}
	return math.Float32frombits(^k)
}

// sharedFloor is the best floor any worker has proven, as float32 bits
// (0 before any): each worker's floor is a floor for all rows, so every
// worker may drop rows below the highest one.
type sharedFloor struct{ bits atomic.Uint32 }

// get is the shared floor (-Inf before any worker set one).
func (f *sharedFloor) get() float32 {
	b := f.bits.Load()
	if b == 0 {
		return float32(math.Inf(-1))
	}
	return math.Float32frombits(b)
}

// raise lifts the shared floor to v if v is higher.
func (f *sharedFloor) raise(v float32) {
	for {
		old := f.bits.Load()
		if old != 0 && math.Float32frombits(old) >= v {
			return
		}
		if f.bits.CompareAndSwap(old, math.Float32bits(v)) {
			return
		}
	}
}

// boundSelect is one scan worker's selection. lower holds the lower
// bounds of the rows admitted since the last selection plus the n best
// before it; when it holds 2n, a selection keeps the n best and raises
// the floor to the n-th (a linear quickselect in place of a heap push
// per row: most admitted rows are in the first blocks, while the floor
// climbs). cands is capped the same way at pool rows by upper bound:
// where scores are packed closer than the bound (synthetic text, a
// coarse embedder), the rows the bound cannot rule out would be most of
// the corpus, so the pool keeps the best upper bounds and poolFloor
// records the highest upper bound it let go.
type boundSelect struct {
	n, pool   int
	own       float32 // n-th best lower bound of this worker's rows
	poolFloor float32 // no row left out of cands has a higher upper bound
	shared    *sharedFloor
	lower     []uint32 // orderKey of lower bounds
	cands     []boundCand
	// scratch space of the selections
	tmpLower []uint32
	tmpCands []boundCand
}

func newBoundSelect(n, pool int, shared *sharedFloor) *boundSelect {
	inf := float32(math.Inf(-1))
	return &boundSelect{n: n, pool: pool, own: inf, poolFloor: inf, shared: shared,
		lower: make([]uint32, 0, 2*n), cands: make([]boundCand, 0, 2*pool)}
}

// block takes a block's dot products. The bounds are float32: their
// rounding (~2⁻²⁴ of |score|) is far inside the bound's 0.1% margin.
// boundMask finds the rows whose upper bound reaches the threshold (a
// few vector instructions per 16 rows); only those are looked at one by
// one, against the threshold as it stands (a selection raises it).
func (b *boundSelect) block(base int, scores []int32, scales []float32, maxScale, qs, errPerScale float32) {
	floor := max(b.own, b.shared.get())
	thr := max(floor, b.poolFloor)
	var mask blockMask
	boundMask(scores, scales, qs, errPerScale, thr, maxScale, &mask)
	for w, m := range mask {
		for ; m != 0; m &= m - 1 {
			r := w*64 + bits.TrailingZeros64(m)
			sc, e := float32(scores[r])*scales[r]*qs, errPerScale*scales[r]
			if sc+e < thr {
				continue
			}
			b.cands = append(b.cands, newCand(base+r, sc+e))
			// Only a lower bound above the floor can raise it.
			if lb := sc - e; lb > floor {
				b.lower = append(b.lower, orderKey(lb))
			}
			if len(b.lower) == 2*b.n || len(b.cands) == 2*b.pool {
				b.selectLower()
				b.selectPool()
				floor = max(b.own, b.shared.get())
				thr = max(floor, b.poolFloor)
			}
		}
	}
}

// blockMask has a bit per row of a block.
type blockMask [snapBlockRows / 64]uint64

// boundMaskGo sets the bits of the rows from..len(scores)-1 whose upper
// bound scale·(d·qs + errPerScale) reaches thr. Most rows are dropped on
// an integer compare: with the block's largest scale, a dot product
// below minDot cannot reach thr.
func boundMaskGo(scores []int32, scales []float32, from int, qs, errPerScale, thr, maxScale float32, mask *blockMask) {
	dmin := minDot(thr, maxScale, qs, errPerScale)
	for r := from; r < len(scores); r++ {
		d := scores[r]
		if d < dmin {
			continue
		}
		if float32(d)*scales[r]*qs+errPerScale*scales[r] >= thr {
			mask[r/64] |= 1 << (r % 64)
		}
	}
}

// selectLower keeps the n best lower bounds and raises the floors to the
// n-th of them.
func (b *boundSelect) selectLower() {
	if len(b.lower) < b.n {
		return
	}
	b.lower = topKeys(b.lower, b.n, &b.tmpLower)
	b.own = keyFloat(slices.Min(b.lower))
	b.shared.raise(b.own)
}

// selectPool drops the candidates below the floor, then keeps the pool
// best upper bounds.
func (b *boundSelect) selectPool() {
	b.cands = keepAbove(b.cands, max(b.own, b.shared.get()))
	if len(b.cands) > b.pool {
		b.poolFloor = max(b.poolFloor, capPool(&b.cands, b.pool, &b.tmpCands))
	}
}

// capPool keeps the pool best upper bounds of *c and returns the highest
// upper bound it dropped.
func capPool(c *[]boundCand, pool int, tmp *[]boundCand) float32 {
	kept := topKeys(*c, pool, tmp)
	dropped := slices.Max((*c)[pool:])
	*c = kept
	return dropped.ub()
}

// minDot is the smallest dot product whose upper bound can reach floor
// at a code scale of at most maxScale: scale·(d·qs + errPerScale) ≥ floor
// needs d ≥ (floor/maxScale − errPerScale)/qs. It is lowered by 10⁻⁵ of
// itself and 2, far more than float32 rounding moves the bound, so a row
// below it is one the float test drops too.
func minDot(floor, maxScale, qs, errPerScale float32) int32 {
	if !(floor > 0) || !(maxScale > 0) || !(qs > 0) {
		return math.MinInt32
	}
	t := (float64(floor)/float64(maxScale) - float64(errPerScale)) / float64(qs)
	t -= math.Abs(t)*1e-5 + 2
	return int32(max(math.MinInt32, min(math.MaxInt32, math.Floor(t))))
}

// topKeys moves the n largest of v to its front and returns them, in no
// order: a quickselect whose partition has no data-dependent branch and
// no load that waits on the last compare, because the bounds of a scan
// are as unpredictable as branches get (a branching quickselect took
// 2.2 µs for 200 values). tmp is scratch space, grown to len(v) if short.
func topKeys[T ~uint32 | ~uint64](v []T, n int, tmp *[]T) []T {
	if n >= len(v) {
		return v
	}
	if cap(*tmp) < len(v) {
		*tmp = make([]T, len(v))
	}
	// v[:lo] are in the top n and v[hi:] are not.
	lo, hi := 0, len(v)
	for lo < n && n < hi {
		a, b, c := v[lo], v[lo+(hi-lo)/2], v[hi-1]
		p := max(min(a, b), min(max(a, b), c))
		j := lo + partitionAbove(v[lo:hi], (*tmp)[:hi-lo], p, false)
		if j >= n {
			hi = j // p is not above itself: j < hi
			continue
		}
		lo = j + partitionAbove(v[j:hi], (*tmp)[:hi-j], p, true) // the keys equal to p, p among them
	}
	return v[:n]
}

// partitionAbove moves the keys of v above p (equal to it, with eq) to
// its front, in order, and returns how many there are. Every key is
// stored twice, to the front of v and to tmp, and only the counts
// advance by the compare.
func partitionAbove[T ~uint32 | ~uint64](v, tmp []T, p T, eq bool) int {
	j, k := 0, 0
	for _, x := range v {
		in := x > p
		if eq {
			in = x == p
		}
		add := 0
		if in {
			add = 1
		}
		v[j] = x // j ≤ the index of x: a slot already read
		tmp[k] = x
		j += add
		k += 1 - add
	}
	copy(v[j:], tmp[:k])
	return j
}

// keepAbove keeps the candidates whose upper bound reaches floor.
func keepAbove(c []boundCand, floor float32) []boundCand {
	f, j := candFloor(floor), 0
	for _, x := range c {
		c[j] = x
		if x >= f {
			j++
		}
	}
	return c[:j]
}

// mergeBounds joins the workers' selections: the rows whose upper bound
// reaches the n-th best lower bound of all rows, at most pool of them (in
// no order), and the highest upper bound of a row left out for the pool
// (-Inf when none was).
func mergeBounds(sel []*boundSelect, n, pool int) ([]boundCand, float32) {
	var lower, tmpLower []uint32
	var tmpCands []boundCand
	poolFloor := float32(math.Inf(-1))
	for _, b := range sel {
		lower = append(lower, b.lower...)
		poolFloor = max(poolFloor, b.poolFloor)
	}
	floor := float32(math.Inf(-1))
	if len(lower) >= n {
		floor = keyFloat(slices.Min(topKeys(lower, n, &tmpLower)))
	}
	var out []boundCand
	for _, b := range sel {
		out = append(out, keepAbove(b.cands, floor)...)
	}
	if len(out) > pool {
		poolFloor = max(poolFloor, capPool(&out, pool, &tmpCands))
	}
	return out, poolFloor
}
