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

// TestSnapshotTopKExact checks the int8 scan with bounded rescoring
// against the exact float32 scan, scores and order, on spread scores (the
// bound stops early), on a cluster of near-copies around the top (many
// rows within the bound of each other) and on exact duplicates (ties
// ordered by id).
func TestSnapshotTopKExact(t *testing.T) {
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
	cases := []struct {
		name   string
		vecs   func() [][]float32
		n      int
		spread bool
	}{
		{"spread", func() [][]float32 {
			var vs [][]float32
			for i := 0; i < 5000; i++ {
				vs = append(vs, unitVec(r, dim))
			}
			return vs
		}, 20, true},
		{"near-copies", func() [][]float32 {
			var vs [][]float32
			for i := 0; i < 3000; i++ {
				if i%3 == 0 {
					vs = append(vs, near(0.002))
				} else {
					vs = append(vs, unitVec(r, dim))
				}
			}
			return vs
		}, 10, false},
		{"duplicates", func() [][]float32 {
			var vs [][]float32
			dup := near(0.3)
			for i := 0; i < 3000; i++ {
				if i%7 == 0 {
					vs = append(vs, dup)
				} else {
					vs = append(vs, unitVec(r, dim))
				}
			}
			return vs
		}, 50, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vecs := c.vecs()
			s := rawSnapshot(t, dim, vecs)
			got, st, err := s.topKStats(scanShare{}, q, c.n)
			if err != nil {
				t.Fatal(err)
			}
			if want := exactTop(vecs, q, c.n); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("got  %v\nwant %v", got, want)
			}
			if c.spread && st.rescored > 3*c.n {
				t.Errorf("spread scores: rescored %d rows for the top %d, want an early proof (%+v)", st.rescored, c.n, st)
			}
			if st.rescored > st.candidates {
				t.Errorf("rescored %d of %d candidates", st.rescored, st.candidates)
			}
			t.Logf("%+v", st)
		})
	}
}

// TestTopValues checks the quickselect against a sort, with many equal
// values.
func TestTopValues(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for trial := 0; trial < 500; trial++ {
		v := make([]float32, 1+r.Intn(300))
		for i := range v {
			v[i] = float32(r.Intn(1 + trial%40))
		}
		n := 1 + r.Intn(len(v))
		want := slices.Clone(v)
		slices.Sort(want)
		want = want[len(want)-n:]
		got := slices.Clone(topValues(v, n))
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d of %d: got %v, want %v", n, len(v), got, want)
		}
	}
}
