package research

import (
	"math"
	"slices"
	"sync/atomic"
)

// The int8 scan keeps, per worker, the rows whose upper bound (approximate
// score + error bound) may still reach the top n. The floor they are held
// to is the n-th best lower bound seen so far: no row whose upper bound is
// below it can rank, because n rows are known to score at least that.

// boundCand is a row whose float32 score may reach the top n, with the
// upper bound of that score.
type boundCand struct {
	row uint32
	ub  float32
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
	lower     []float32
	cands     []boundCand
}

func newBoundSelect(n, pool int, shared *sharedFloor) *boundSelect {
	inf := float32(math.Inf(-1))
	return &boundSelect{n: n, pool: pool, own: inf, poolFloor: inf, shared: shared,
		lower: make([]float32, 0, 2*n), cands: make([]boundCand, 0, 2*pool)}
}

// block takes a block's dot products. The bounds are float32: their
// rounding (~2⁻²⁴ of |score|) is far inside the bound's 0.1% margin.
// Most rows are dropped on an integer compare: with the block's largest
// scale, a dot product below dmin cannot reach the threshold.
func (b *boundSelect) block(base int, scores []int32, scales []float32, maxScale, qs, errPerScale float32) {
	floor := max(b.own, b.shared.get())
	thr := max(floor, b.poolFloor)
	dmin := minDot(thr, maxScale, qs, errPerScale)
	for r, d := range scores {
		if d < dmin {
			continue // the common case: one compare
		}
		sc, e := float32(d)*scales[r]*qs, errPerScale*scales[r]
		if sc+e < thr {
			continue
		}
		b.cands = append(b.cands, boundCand{row: uint32(base + r), ub: sc + e})
		// Only a lower bound above the floor can raise it.
		if lb := sc - e; lb > floor {
			b.lower = append(b.lower, lb)
		}
		if len(b.lower) == 2*b.n || len(b.cands) == 2*b.pool {
			b.selectLower()
			b.selectPool()
			floor = max(b.own, b.shared.get())
			thr = max(floor, b.poolFloor)
			dmin = minDot(thr, maxScale, qs, errPerScale)
		}
	}
}

// selectLower keeps the n best lower bounds and raises the floors to the
// n-th of them.
func (b *boundSelect) selectLower() {
	if len(b.lower) < b.n {
		return
	}
	b.lower = topValues(b.lower, b.n)
	b.own = slices.Min(b.lower)
	b.shared.raise(b.own)
}

// selectPool drops the candidates below the floor, then keeps the pool
// best upper bounds.
func (b *boundSelect) selectPool() {
	b.cands = keepAbove(b.cands, max(b.own, b.shared.get()))
	if len(b.cands) > b.pool {
		b.poolFloor = max(b.poolFloor, capPool(&b.cands, b.pool))
	}
}

// capPool keeps the pool best upper bounds of *c and returns the highest
// upper bound it dropped.
func capPool(c *[]boundCand, pool int) float32 {
	kept := selectTop(*c, pool, func(x boundCand) float32 { return x.ub })
	dropped := float32(math.Inf(-1))
	for _, x := range (*c)[pool:] {
		dropped = max(dropped, x.ub)
	}
	*c = kept
	return dropped
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

// topValues moves the n largest of v to its front and returns them, in
// no order: selectTop for plain values, written out because it runs
// several times per scan.
func topValues(v []float32, n int) []float32 {
	lo, hi := 0, len(v)-1
	for lo < hi {
		a, b, c := v[lo], v[lo+(hi-lo)/2], v[hi]
		p := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for v[i] > p {
				i++
			}
			for v[j] < p {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case n-1 <= j:
			hi = j
		case n-1 >= i:
			lo = i
		default:
			return v[:n]
		}
	}
	return v[:n]
}

// selectTop moves the n elements of v with the largest keys to its front
// (quickselect: linear on average) and returns them, in no order.
func selectTop[T any](v []T, n int, key func(T) float32) []T {
	lo, hi := 0, len(v)-1
	for lo < hi {
		// Median of three as the pivot; keys ≥ it go left.
		a, b, c := key(v[lo]), key(v[lo+(hi-lo)/2]), key(v[hi])
		p := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for key(v[i]) > p {
				i++
			}
			for key(v[j]) < p {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case n-1 <= j:
			hi = j
		case n-1 >= i:
			lo = i
		default:
			return v[:n]
		}
	}
	return v[:n]
}

func keepAbove(c []boundCand, floor float32) []boundCand {
	out := c[:0]
	for _, x := range c {
		if x.ub >= floor {
			out = append(out, x)
		}
	}
	return out
}

// mergeBounds joins the workers' selections: the rows whose upper bound
// reaches the n-th best lower bound of all rows, at most pool of them (in
// no order), and the highest upper bound of a row left out for the pool
// (-Inf when none was).
func mergeBounds(sel []*boundSelect, n, pool int) ([]boundCand, float32) {
	var lower []float32
	poolFloor := float32(math.Inf(-1))
	for _, b := range sel {
		lower = append(lower, b.lower...)
		poolFloor = max(poolFloor, b.poolFloor)
	}
	floor := float32(math.Inf(-1))
	if len(lower) >= n {
		floor = slices.Min(topValues(lower, n))
	}
	var out []boundCand
	for _, b := range sel {
		out = append(out, keepAbove(b.cands, floor)...)
	}
	if len(out) > pool {
		poolFloor = max(poolFloor, capPool(&out, pool))
	}
	return out, poolFloor
}
