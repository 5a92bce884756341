package corpus

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinyModel writes a 3-token static model directory with dim columns.
func tinyModel(t *testing.T, dir string, dim int) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "tokenizer.json"), `{"normalizer":{"type":"BertNormalizer","lowercase":true},"model":{"type":"WordPiece","vocab":{"[UNK]":0,"journal":1,"pager":2}}}`)
	data := make([]byte, 3*dim*4)
	for i := range dim {
		binary.LittleEndian.PutUint32(data[(dim+i)*4:], 0x3f800000) // row 1 = ones
	}
	hdr := fmt.Sprintf(`{"embeddings":{"dtype":"F32","shape":[3,%d],"data_offsets":[0,%d]}}`, dim, len(data))
	file := binary.LittleEndian.AppendUint64(nil, uint64(len(hdr)))
	writeFile(t, filepath.Join(dir, "model.safetensors"), string(append(append(file, hdr...), data...)))
}

func TestBrokenLocalModelLeavesIndexAndKeywordSearch(t *testing.T) {
	e := newEnv(t, "")
	dir := docs(t)
	if err := e.run(t, "ingest", dir); err != nil {
		t.Fatal(err)
	}
	e.run(t, "list")
	before := e.out.(fmt.Stringer).String()
	model := filepath.Join(t.TempDir(), "model")
	cfg := fmt.Sprintf("[research.embedding]\nprovider = \"static\"\npath = %q\n", model)

	tinyModel(t, model, 4)
	good := envAt(t, e.home, cfg)
	if err := good.run(t, "reindex"); err != nil {
		t.Fatalf("a valid local model: %v", err)
	}
	w := filepath.Join(model, "model.safetensors")
	b, _ := os.ReadFile(w)
	damage := map[string]func(){
		"truncated weights": func() { os.WriteFile(w, b[:len(b)-5], 0o644) },
		"missing tokenizer": func() { os.Remove(filepath.Join(model, "tokenizer.json")) },
		"dimension change":  func() { tinyModel(t, model, 4) },
	}
	wantFile := map[string]string{"truncated weights": w, "missing tokenizer": filepath.Join(model, "tokenizer.json"), "dimension change": w}
	for _, name := range []string{"truncated weights", "missing tokenizer", "dimension change"} {
		damage[name]()
		conf := cfg
		if name == "dimension change" {
			conf += "dimensions = 8\n"
		}
		x := envAt(t, e.home, conf)
		for _, verb := range [][]string{{"ingest", dir}, {"reindex"}} {
			err := x.run(t, verb...)
			if err == nil || !strings.Contains(err.Error(), wantFile[name]) {
				t.Errorf("%s: %s: err = %v, want one naming %s", name, verb[0], err, wantFile[name])
			}
		}
		if err := x.run(t, "query", "journal"); err != nil {
			t.Errorf("%s: keyword query: %v", name, err)
		}
		if out := x.out.(fmt.Stringer).String(); !strings.Contains(out, "journal") {
			t.Errorf("%s: keyword query found %q", name, out)
		}
		if !strings.Contains(x.err.(fmt.Stringer).String(), "keyword only") {
			t.Errorf("%s: no warning: %q", name, x.err)
		}
		x.run(t, "list")
		if got := x.out.(fmt.Stringer).String(); got != before {
			t.Errorf("%s: index changed:\n%s\nwas\n%s", name, got, before)
		}
	}
}
