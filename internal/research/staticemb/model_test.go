package staticemb

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// golden.json is written by convert/convert.py next to the model: token ids
// from the model's own HF tokenizer and vectors from the Python reference
// of the static embedding. It pins the compiled-in table (sha256), the
// Go WordPiece tokenizer and the Go embedding arithmetic.
type golden struct {
	SHA256 string `json:"model_sha256"`
	Dim    int    `json:"dim"`
	Vocab  int    `json:"vocab"`
	Texts  []struct {
		Text   string    `json:"text"`
		IDs    []int32   `json:"ids"`
		Vector []float64 `json:"vector"`
	} `json:"texts"`
}

func loadGolden(t *testing.T) golden {
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

func TestBuiltinMatchesReferenceImplementation(t *testing.T) {
	g := loadGolden(t)
	m, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if m.SHA256 != g.SHA256 || m.Dim != g.Dim || len(m.Tokens) != g.Vocab {
		t.Fatalf("compiled-in model sha %s dim %d vocab %d; golden says %s %d %d (re-run convert.py)", m.SHA256, m.Dim, len(m.Tokens), g.SHA256, g.Dim, g.Vocab)
	}
	for _, c := range g.Texts {
		ids := m.TokenIDs(c.Text)
		if !slices.Equal(ids, c.IDs) {
			t.Errorf("%q: ids %v, reference tokenizer %v", c.Text, ids, c.IDs)
			continue
		}
		v := m.Embed(c.Text)
		var dot float64
		for i := range v {
			dot += float64(v[i]) * c.Vector[i]
		}
		if dot < 0.99999 {
			t.Errorf("%q: cosine with the reference vector %.6f", c.Text, dot)
		}
	}
}

func TestWordPieceSplitsLikeBERT(t *testing.T) {
	wp := NewWordPiece([]string{"[UNK]", "un", "##aff", "##able", "hello", ",", "cafe", "x"})
	got := wp.Tokenize(nil, "UnAffable, Héllo café\tzzz "+strings.Repeat("x", 101))
	want := []int32{1, 2, 3, 5, 4, 6, 0, 0}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestLoadDirRejectsDamageNamingTheFile(t *testing.T) {
	tok, err := builtinFS.ReadFile("data/" + TokenizerFile)
	if err != nil {
		t.Fatal(err)
	}
	w, err := builtinFS.ReadFile("data/" + WeightsFile)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		tok, w   []byte
		wantFile string
	}{
		{"truncated weights", tok, w[:len(w)-1000], WeightsFile},
		{"weights header only", tok, w[:8], WeightsFile},
		{"garbage weights", tok, []byte("not a safetensors file at all"), WeightsFile},
		{"missing weights", tok, nil, WeightsFile},
		{"missing tokenizer", nil, w, TokenizerFile},
		{"corrupt tokenizer", []byte("{\"model\":"), w, TokenizerFile},
		{"vocab of another size", []byte(`{"normalizer":{"type":"BertNormalizer","lowercase":true},"model":{"type":"WordPiece","vocab":{"[UNK]":0,"a":1}}}`), w, WeightsFile},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if c.tok != nil {
			os.WriteFile(filepath.Join(dir, TokenizerFile), c.tok, 0o644)
		}
		if c.w != nil {
			os.WriteFile(filepath.Join(dir, WeightsFile), c.w, 0o644)
		}
		_, err := LoadDir(dir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, c.wantFile)) {
			t.Errorf("%s: err = %v, want an error naming %s", c.name, err, c.wantFile)
		}
	}
	// The intact pair loads from a directory too.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, TokenizerFile), tok, 0o644)
	os.WriteFile(filepath.Join(dir, WeightsFile), w, 0o644)
	m, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Builtin()
	if m.SHA256 != b.SHA256 {
		t.Errorf("same files, different identity")
	}
}

func TestF16AndF32WeightsLoad(t *testing.T) {
	// A 3-token, 2-dim model written by hand in each float encoding.
	tok := []byte(`{"normalizer":{"type":"BertNormalizer","lowercase":true},"model":{"type":"WordPiece","vocab":{"[UNK]":0,"cat":1,"dog":2}}}`)
	f32 := []float32{0, 0, 1, 0, 0.5, 0.5}
	for _, dt := range []string{"F32", "F16"} {
		var data []byte
		for _, x := range f32 {
			if dt == "F32" {
				data = binary.LittleEndian.AppendUint32(data, math.Float32bits(x))
			} else {
				h := map[float32]uint16{0: 0, 1: 0x3c00, 0.5: 0x3800}[x]
				data = binary.LittleEndian.AppendUint16(data, h)
			}
		}
		hdr := fmt.Sprintf(`{"embeddings":{"dtype":%q,"shape":[3,2],"data_offsets":[0,%d]}}`, dt, len(data))
		file := binary.LittleEndian.AppendUint64(nil, uint64(len(hdr)))
		file = append(append(file, hdr...), data...)
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, TokenizerFile), tok, 0o644)
		os.WriteFile(filepath.Join(dir, WeightsFile), file, 0o644)
		m, err := LoadDir(dir)
		if err != nil {
			t.Fatalf("%s: %v", dt, err)
		}
		v := m.Embed("Dog")
		if math.Abs(float64(v[0])-math.Sqrt(0.5)) > 0.01 || math.Abs(float64(v[1])-math.Sqrt(0.5)) > 0.01 {
			t.Errorf("%s: dog = %v", dt, v)
		}
		if v := m.Embed("zebra"); v[0] != 0 || v[1] != 0 {
			t.Errorf("%s: unknown word = %v, want zero", dt, v)
		}
	}
}

func TestParaphrasesAreCloserThanUnrelated(t *testing.T) {
	m, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	cos := func(a, b string) float64 {
		x, y := m.Embed(a), m.Embed(b)
		var d float64
		for i := range x {
			d += float64(x[i]) * float64(y[i])
		}
		return d
	}
	if p, u := cos("I cycle to work", "how do I commute"), cos("I cycle to work", "the licence grants patent rights"); p <= u {
		t.Errorf("paraphrase %.3f not above unrelated %.3f", p, u)
	}
	if v := m.Embed("🙂🙂"); math.Abs(float64(v[0])) > 0 && len(v) != m.Dim {
		t.Errorf("bad dim")
	}
}

func BenchmarkEmbedChunk(b *testing.B) {
	m, err := Builtin()
	if err != nil {
		b.Fatal(err)
	}
	// About 1 KB of varied prose, like one chunk.
	text := "The recover function allows a program to manage behavior of a panicking goroutine. " +
		"Suppose a function G defers a function D that calls recover and a panic occurs in a function on the same goroutine in which G is executing. " +
		"When the running of deferred functions reaches D, the return value of D's call to recover will be the value passed to the call of panic. " +
		"If D returns normally, without starting a new panic, the panicking sequence stops. In that case, the state of functions called between G and the call to panic is discarded, and normal execution resumes. " +
		"Any functions deferred by G before D are then run and G's execution terminates by returning to its caller. " +
		"The return value of recover is nil when the goroutine is not panicking or recover was not called directly by a deferred function. " +
		"Licensees may charge a fee for the physical act of transferring a copy, and may at their option offer warranty protection in exchange for a fee."
	var st State
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		st.Embed(m, text)
	}
}

func TestDecodeVocabMatchesEncodingJSON(t *testing.T) {
	raw := []byte(` { "[PAD]" : 0, "\"": 1,"\\":2, "é":3, "\u00e9x":4 ,"##a":5 } `)
	var want map[string]int32
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	got, err := decodeVocab(raw)
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
	for _, b := range []string{`{"a":1`, `{"a" 1}`, `{"a":x}`, `["a"]`, `{"a":1,"a":2}`} {
		if _, err := decodeVocab([]byte(b)); err == nil {
			t.Errorf("%s: no error", b)
		}
	}
}
