package research

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/askygo/asky/internal/store"
)

// rawSnapshot writes vecs (ids 1000+i) to a snapshot and maps it.
func rawSnapshot(t *testing.T, dim int, vecs [][]float32) *snapSet {
	t.Helper()
	ix := &Index{SnapshotDir: t.TempDir(), fp: "test"}
	ix.spec.Dim = dim
	f := store.CorpusFacts{Generation: 1, Chunks: len(vecs), Vectors: len(vecs)}
	err := ix.createSnapshot(f, func(w *snapWriter) error {
		raw := make([]byte, 4*dim)
		for i, v := range vecs {
			for j, x := range v {
				binary.LittleEndian.PutUint32(raw[4*j:], math.Float32bits(x))
			}
			if err := w.add(int64(1000+i), raw); err != nil {
				return err
			}
		}
		return w.flush()
	})
	if err != nil {
		t.Fatal(err)
	}
	s, ok := ix.openSnapshot(1, len(vecs))
	if !ok {
		t.Fatal("snapshot not current")
	}
	t.Cleanup(s.close)
	return s
}

// exactTop is the float32 scan's answer over the same rows.
func exactTop(vecs [][]float32, qv []float32, n int) []Scored {
	dim := len(qv)
	ids := make([]int64, len(vecs))
	flat := make([]float32, 0, len(vecs)*dim)
	for i, v := range vecs {
		ids[i] = int64(1000 + i)
		flat = append(flat, v...)
	}
	return FlatTopK(ids, flat, dim, qv, n)
}

func unitVec(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	normalize(v)
	return v
}

// TestSnapshotTopK checks the int8 scan with bounded rescoring against
// the exact float32 scan. Where the bound separates the top n (spread
// scores, a few exact duplicates among them) the result is proven exact:
// same rows, scores and order, ties by id, with few rows rescored. Where
// it cannot (a thousand near-copies of the query, closer together than
// the quantization error), the rescoring stops at the pool, the result
// says it is not proven, and every row in it is a near-tie of the exact
// n-th.
func TestSnapshotTopK(t *testing.T) {
	const dim = 64
	r := rand.New(rand.NewSource(5))
	q := unitVec(r, dim)
	near := func(scale float64) []float32 {
		v := append([]float32(nil), q...)
		for i := range v {
			v[i] += float32(r.NormFloat64() * scale)
		}
		normalize(v)
		return v
	}
	mixed := func(rows, every int, odd func() []float32) [][]float32 {
		var vs [][]float32
		for i := 0; i < rows; i++ {
			if every > 0 && i%every == 0 {
				vs = append(vs, odd())
			} else {
				vs = append(vs, unitVec(r, dim))
			}
		}
		return vs
	}
	dup := near(0.3)
	cases := []struct {
		name  string
		vecs  [][]float32
		n     int
		exact bool
	}{
		{"spread", mixed(5000, 0, nil), 20, true},
		{"duplicates", mixed(3000, 100, func() []float32 { return dup }), 50, true},
		{"near-copies", mixed(3000, 3, func() []float32 { return near(0.002) }), 10, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := rawSnapshot(t, dim, c.vecs)
			got, st, err := s.topKStats(scanShare{}, q, c.n, 1)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%+v", st)
			// Three workers (sharing a floor, merged after) prove the same
			// (a capped pool may break ties of equal codes otherwise).
			par, pst, err := s.topKStats(scanShare{}, q, c.n, 3)
			if err != nil || pst.exact != st.exact || st.exact && fmt.Sprint(par) != fmt.Sprint(got) {
				t.Fatalf("3 workers: %v %+v (%v)\n1 worker:  %v %+v", par, pst, err, got, st)
			}
			want := exactTop(c.vecs, q, c.n)
			if st.exact != c.exact {
				t.Fatalf("proven exact: %v, want %v (%+v)", st.exact, c.exact, st)
			}
			if st.rescored > poolFactor*c.n || st.rescored > st.candidates {
				t.Errorf("rescored %d of %d candidates for the top %d", st.rescored, st.candidates, c.n)
			}
			if c.exact {
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("got  %v\nwant %v", got, want)
				}
				if st.rescored > 3*c.n {
					t.Errorf("rescored %d rows for the top %d, want an early proof", st.rescored, c.n)
				}
				return
			}
			// Not proven: each result is still within twice the bound of
			// the exact n-th score.
			maxScale := 0.0
			for _, v := range c.vecs {
				for _, x := range v {
					maxScale = max(maxScale, math.Abs(float64(x))/127)
				}
			}
			slack := 2 * newI8Query(q).errPerScale * maxScale
			if len(got) != c.n {
				t.Fatalf("%d results, want %d", len(got), c.n)
			}
			for _, x := range got {
				if x.Score < want[c.n-1].Score-slack {
					t.Fatalf("result %+v below the exact n-th %v by more than %v", x, want[c.n-1].Score, slack)
				}
			}
		})
	}
}

// TestTopKeys checks the quickselect against a sort, with many equal
// keys, and orderKey against float order.
func TestTopKeys(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for trial := 0; trial < 500; trial++ {
		v := make([]uint32, 1+r.Intn(300))
		for i := range v {
			v[i] = uint32(r.Intn(1 + trial%40))
		}
		n := 1 + r.Intn(len(v))
		want := slices.Clone(v)
		slices.Sort(want)
		want = want[len(want)-n:]
		got := slices.Clone(topKeys(v, n, new([]uint32)))
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d of %d: got %v, want %v", n, len(v), got, want)
		}
	}
	inf := float32(math.Inf(1))
	fs := []float32{-inf, -3e38, -1, -1e-40, float32(math.Copysign(0, -1)), 0, 1e-40, 0.5, 1, 3e38, inf}
	for i, f := range fs {
		if keyFloat(orderKey(f)) != f {
			t.Fatalf("keyFloat(orderKey(%v)) = %v", f, keyFloat(orderKey(f)))
		}
		for _, g := range fs[i:] {
			if (orderKey(f) < orderKey(g)) != (f < g) {
				t.Fatalf("orderKey(%v) < orderKey(%v) is %v", f, g, orderKey(f) < orderKey(g))
			}
		}
	}
	if c := newCand(12345, -0.25); c.row() != 12345 || c.ub() != -0.25 {
		t.Fatalf("newCand(12345, -0.25) decodes as row %d, bound %v", c.row(), c.ub())
	}
}
