package minilm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// golden.json is written by convert/convert.py: token ids from the model's
// own HF tokenizer and float32 vectors from sentence-transformers running
// the original all-MiniLM-L6-v2.
type golden struct {
	SHA256 string `json:"data_sha256"`
	Dim    int    `json:"dim"`
	Texts  []struct {
		Text   string    `json:"text"`
		IDs    []int32   `json:"ids"`
		Vector []float64 `json:"vector"`
	} `json:"texts"`
}

func loadGolden(t testing.TB) golden {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestWeightsAreTheConvertedOnes(t *testing.T) {
	g := loadGolden(t)
	sum := sha256.Sum256(weights)
	got := hex.EncodeToString(sum[:])
	if got != g.SHA256 || strings.TrimSpace(weightsSum) != g.SHA256 {
		t.Fatalf("data/model.safetensors sha256 %s, data/SHA256SUM %s, golden %s (re-run convert/convert.py)", got, strings.TrimSpace(weightsSum), g.SHA256)
	}
	m, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if m.SHA256 != g.SHA256 {
		t.Fatalf("model identity %s, want %s", m.SHA256, g.SHA256)
	}
}

// TestReproducesSentenceTransformers is the encoder's end-to-end check: the
// compiled-in int8 model gives the reference's vectors, including a text
// cut at 256 word pieces, unicode and a code identifier.
func TestReproducesSentenceTransformers(t *testing.T) {
	g := loadGolden(t)
	m, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, len(g.Texts))
	for i, c := range g.Texts {
		texts[i] = c.Text
		if ids := m.Tokens(nil, c.Text); !slices.Equal(ids, c.IDs) {
			t.Errorf("%.40q: ids %v, reference %v", c.Text, ids, c.IDs)
		}
	}
	check := func(name string, vs [][]float32) {
		worst := 1.0
		for i, c := range g.Texts {
			var dot float64
			for j, x := range vs[i] {
				dot += float64(x) * c.Vector[j]
			}
			worst = min(worst, dot)
			if dot < 0.99 {
				t.Errorf("%s %.40q: cosine with sentence-transformers %.5f", name, c.Text, dot)
			}
		}
		t.Logf("%s: min cosine with sentence-transformers %.5f", name, worst)
	}
	// One batch on two threads, then one text at a time on one.
	check("batched", m.NewEncoder(2).Encode(texts))
	one := m.NewEncoder(1)
	var single [][]float32
	for _, s := range texts {
		single = append(single, one.Encode([]string{s})[0])
	}
	check("single", single)
}

func TestKernelsMatchPortableLoops(t *testing.T) {
	if !useAsm {
		t.Skip("no AVX2/FMA: only the portable loops exist here")
	}
	r := rand.New(rand.NewPCG(1, 2))
	const rows, k, out = 12, 40, 48
	l := linear{q: make([]int8, out*k), scale: make([]float32, out), bias: make([]float32, out), in: k, out: out}
	for i := range l.q {
		l.q[i] = int8(r.IntN(255) - 127)
	}
	for i := range out {
		l.scale[i], l.bias[i] = r.Float32(), r.Float32()-0.5
	}
	a := make([]float32, rows*k)
	bf := make([]float32, out*k)
	for i := range a {
		a[i] = r.Float32() - 0.5
	}
	for i := range bf {
		bf[i] = r.Float32() - 0.5
	}
	run := func(asm bool) ([]float32, []float32) {
		defer func(old bool) { useAsm = old }(useAsm)
		useAsm = asm
		c1, c2 := make([]float32, rows*out), make([]float32, rows*out)
		gemmI8(c1, out, a, k, rows, &l, 1, out/panel)
		gemmF32(c2, out, a, k, rows, bf, k, out/panel)
		return c1, c2
	}
	g1, g2 := run(false)
	s1, s2 := run(true)
	// Softmax (with −Inf padding) and GELU over a wide range.
	vec := func(asm bool) ([]float32, []float32) {
		defer func(old bool) { useAsm = old }(useAsm)
		useAsm = asm
		sm, ge := make([]float32, 40), make([]float32, 4000)
		for i := range sm {
			sm[i] = float32(i%13)*1.7 - 9
		}
		sm[37], sm[38], sm[39] = float32(math.Inf(-1)), float32(math.Inf(-1)), float32(math.Inf(-1))
		for i := range ge {
			ge[i] = float32(i-2000) / 200
		}
		softmax(sm)
		gelu(ge)
		return sm, ge
	}
	gs, gg := vec(false)
	ss, sg := vec(true)
	for i := range gs {
		if math.Abs(float64(gs[i]-ss[i])) > 1e-6 {
			t.Fatalf("softmax %d: %g vs %g", i, gs[i], ss[i])
		}
	}
	for i := range gg {
		if math.Abs(float64(gg[i]-sg[i])) > 1e-5 {
			t.Fatalf("gelu(%g): %g vs %g", float32(i-2000)/200, gg[i], sg[i])
		}
	}
	if ss[38] != 0 {
		t.Fatalf("softmax of −Inf = %g", ss[38])
	}
	for i := range g1 {
		if math.Abs(float64(g1[i]-s1[i])) > 1e-3*(1+math.Abs(float64(g1[i]))) || math.Abs(float64(g2[i]-s2[i])) > 1e-4 {
			t.Fatalf("element %d: int8 %g vs %g, f32 %g vs %g", i, g1[i], s1[i], g2[i], s2[i])
		}
	}
}

func TestExpAndErfAreAccurate(t *testing.T) {
	for x := float32(-90); x < 20; x += 0.01 {
		want := math.Exp(float64(x))
		if got := float64(expf(x)); math.Abs(got-want) > 2e-6*want+1e-37 {
			t.Fatalf("expf(%g) = %g, want %g", x, got, want)
		}
	}
	for x := float32(-6); x < 6; x += 0.001 {
		if got, want := float64(erf(x)), math.Erf(float64(x)); math.Abs(got-want) > 5e-7 {
			t.Fatalf("erf(%g) = %g, want %g", x, got, want)
		}
	}
}

func TestLoadRejectsDamagedWeights(t *testing.T) {
	tokens := make([]string, 10)
	for _, b := range [][]byte{nil, []byte("\x05\x00\x00\x00\x00\x00\x00\x00{}"), weights[:len(weights)/2]} {
		if _, err := load(b, tokens); err == nil {
			t.Errorf("load of %d damaged bytes succeeded", len(b))
		}
	}
}
