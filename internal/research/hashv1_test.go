package research

import (
	"encoding/json"
	"flag"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files")

// referenceHashV1 is a literal, string-keyed transcription of the spec in
// reference/embedder.md §4, kept deliberately naive so the optimised
// embedder is checked against it.
func referenceHashV1(text string) []float64 {
	var toks []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		if !IsStopword(f) {
			toks = append(toks, f)
		}
	}
	counts := map[string]float64{}
	for _, t := range toks {
		counts["w:"+t] += 1
		rs := []rune("<" + t + ">")
		var grams []string
		for n := 3; n <= 5; n++ {
			for i := 0; i+n <= len(rs); i++ {
				grams = append(grams, string(rs[i:i+n]))
			}
		}
		for _, g := range grams {
			counts[g] += 1 / math.Sqrt(float64(len(grams)))
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	v := make([]float64, 512)
	for _, k := range keys {
		c := counts[k]
		val := c
		if c >= 1 {
			val = 1 + math.Log(c)
		}
		h := fnv.New64a()
		h.Write([]byte(k))
		sum := h.Sum64()
		if sum>>63 == 1 {
			val = -val
		}
		v[sum%512] += val
	}
	var n float64
	for _, x := range v {
		n += x * x
	}
	if n > 0 {
		n = math.Sqrt(n)
		for i := range v {
			v[i] /= n
		}
	}
	return v
}

func TestHashV1MatchesReference(t *testing.T) {
	for _, text := range []string{
		"Go",
		"The select statement picks a case at uniform pseudo-random selection.",
		"Ünïcödé naïve café — 東京 2026 go-readability C++ foo:bar",
		"the a of and", // only stopwords: zero vector
		"",
		"ab ab ab ab ab",
	} {
		got := HashV1Vector(text)
		want := referenceHashV1(text)
		if len(got) != 512 {
			t.Fatalf("dim %d", len(got))
		}
		for i := range want {
			if math.Abs(float64(got[i])-want[i]) > 1e-6 {
				t.Fatalf("%q: v[%d] = %v, want %v", text, i, got[i], want[i])
			}
		}
	}
}

func TestHashV1SingleTokenByHand(t *testing.T) {
	// "go": feature w:go (c=1 → 1) and grams <go, go>, <go> each 1/√3.
	v := HashV1Vector("Go")
	want := map[uint64]float64{}
	add := func(f string, val float64) {
		h := fnv.New64a()
		h.Write([]byte(f))
		s := h.Sum64()
		if s>>63 == 1 {
			val = -val
		}
		want[s%512] += val
	}
	add("w:go", 1)
	for _, g := range []string{"<go", "go>", "<go>"} {
		add(g, 1/math.Sqrt(3))
	}
	var n float64
	for _, x := range want {
		n += x * x
	}
	for i, x := range v {
		if math.Abs(float64(x)-want[uint64(i)]/math.Sqrt(n)) > 1e-6 {
			t.Fatalf("v[%d]=%v want %v", i, x, want[uint64(i)]/math.Sqrt(n))
		}
	}
}

func TestHashV1Properties(t *testing.T) {
	if v := HashV1Vector("the of and"); !isZero(v) {
		t.Fatal("stopword-only text must give the zero vector")
	}
	v := HashV1Vector("hybrid retrieval with reciprocal rank fusion")
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if math.Abs(n-1) > 1e-5 {
		t.Fatalf("norm² = %v", n)
	}
	// Typos stay close (char n-grams), unrelated text does not.
	a := HashV1Vector("reciprocal rank fusion")
	b := HashV1Vector("reciprocal rnak fusion")
	c := HashV1Vector("banana smoothie recipe")
	if Cosine(a, b) <= Cosine(a, c) || Cosine(a, b) < 0.5 {
		t.Fatalf("cos(typo)=%v cos(unrelated)=%v", Cosine(a, b), Cosine(a, c))
	}
	if HashV1Identity != "builtin/hash-v1;d=512;w1;c3-5;fnv1a64;tf=1+ln;stop=en-v1" {
		t.Fatalf("identity changed: %s", HashV1Identity)
	}
	if n := len(stopwordsEnV1); n < 120 || n > 140 {
		t.Fatalf("stopword list has %d words", n)
	}
}

// TestHashV1Golden pins vectors so any drift (which would silently mix
// spaces under the same fingerprint) fails.
func TestHashV1Golden(t *testing.T) {
	texts := []string{"Go", "The select statement picks a case at uniform pseudo-random selection.", "naïve café 東京"}
	type entry struct {
		Text    string             `json:"text"`
		Nonzero map[string]float32 `json:"nonzero"`
	}
	var got []entry
	for _, s := range texts {
		e := entry{Text: s, Nonzero: map[string]float32{}}
		for i, x := range HashV1Vector(s) {
			if x != 0 {
				e.Nonzero[itoa(i)] = x
			}
		}
		got = append(got, e)
	}
	path := filepath.Join("testdata", "hashv1_golden.json")
	if *updateGolden {
		b, _ := json.MarshalIndent(got, "", " ")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []entry
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(got) {
		t.Fatalf("golden has %d entries", len(want))
	}
	for i := range want {
		if len(want[i].Nonzero) != len(got[i].Nonzero) {
			t.Fatalf("%q: %d nonzero, golden %d", texts[i], len(got[i].Nonzero), len(want[i].Nonzero))
		}
		for k, x := range want[i].Nonzero {
			if got[i].Nonzero[k] != x {
				t.Fatalf("%q: v[%s] = %v, golden %v", texts[i], k, got[i].Nonzero[k], x)
			}
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestFingerprint(t *testing.T) {
	a := HashV1{}.Spec()
	b := a
	b.QueryPrefix = "search_query: "
	if a.Fingerprint() == b.Fingerprint() || len(a.Fingerprint()) != 12 {
		t.Fatalf("fingerprints %s %s", a.Fingerprint(), b.Fingerprint())
	}
	if a.Fingerprint() != (HashV1{}).Spec().Fingerprint() {
		t.Fatal("fingerprint not stable")
	}
}
