package config

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/BurntSushi/toml"
)

// FuzzConfigLoad: loading never panics, every error carries a position (or
// names the key it rejects), and for accepted input `config show` output
// loads back to the same configuration (load → show → load is a fixed
// point), with secrets staying redacted.
func FuzzConfigLoad(f *testing.F) {
	seeds := []string{
		"",
		modelsTOML,
		"[general]\ndefault_model = \"gf\"\nmax_turns = 20\nrequest_timeout = 60\nsearch_provider = \"searxng\"\n",
		"[api.gemini]\nurl = \"https://generativelanguage.googleapis.com/v1beta/chat/completions\"\napi_key_env = \"GOOGLE_API_KEY\"\n[api.lmstudio]\nurl = \"http://localhost:1234/v1/chat/completions\"\napi_key = \"lm-studio\"\n",
		"[models.gf]\nid = \"gemini-flash-latest\"\napi = \"gemini\"\ncontext_size = 1000000\n[models.gf.parameters]\ntemperature = 0.7\nreasoning = true\n",
		"[research]\nlocal_document_roots = [\"~/docs\"]\n[research.source_shortlist]\nenabled = true\n[research.chromadb]\npersist_directory = \"x\"\n",
		"[user_prompts]\ngn = \"news\"\n[tool.list_dir]\ncommand = \"ls {flags} {path}\"\n[command_presets]\ndaily = \"--shortlist on $*\"\n",
		"\xef\xbb\xbf[general]\nmax_turns = 3\n",
		"[general]\nx = \"a\x00b\"\n",
		"[general]\nmax_turns = 1\nmax_turns = 2\n",
		"[general]\nmax_turns = 99999999999999999999\n",
		"[xmpp]\npassword = \"pw\"\nallowed_jids = [\"a@b\"]\n",
		"[api.x]\ntype = \"anthropic\"\nbase_url = \"http://h/\"\nheaders = { Authorization = \"k\" }\n",
		"[generl]\nmax_trns = 1\n",
		"a = 1979-05-27T07:32:00Z\nb = nan\n[[c]]\nd = 1\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	getenv := func(k string) string { return map[string]string{"ASKY_HOME": dir}[k] }
	file := filepath.Join(dir, MainFile)
	f.Fuzz(func(t *testing.T, raw []byte) {
		cfg, err := loadWith(getenv, map[string][]byte{file: raw})
		if err != nil {
			var pe *ParseError
			var ve *ValueError
			switch {
			case errors.As(err, &pe):
				if pe.File != file || pe.Line < 1 || pe.Col < 1 {
					t.Fatalf("error without position: %#v", pe)
				}
			case errors.As(err, &ve):
				if ve.Key == "" {
					t.Fatalf("value error without key: %v", ve)
				}
			default:
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		// The generic tree survives encode → decode.
		tree := map[string]any{}
		if _, err := toml.Decode(string(bytes.TrimPrefix(raw, bom)), &tree); err != nil {
			t.Fatal(err)
		}
		if !hasNaN(tree) {
			var buf bytes.Buffer
			if err := toml.NewEncoder(&buf).Encode(tree); err == nil {
				back := map[string]any{}
				if _, err := toml.Decode(buf.String(), &back); err != nil {
					t.Fatalf("re-encoded tree does not parse: %v\n%s", err, buf.String())
				}
				if !reflect.DeepEqual(normTimes(tree), normTimes(back)) {
					t.Fatalf("tree round trip differs:\n%v\n%v", tree, back)
				}
			}
		}
		shown, err := cfg.EncodeTOML()
		if err != nil {
			t.Fatalf("show: %v", err)
		}
		// Differential: the same content in two files goes through the
		// merge path (trees merged, re-encoded, decoded) and must give the
		// same configuration as the single-file path.
		split, err := loadWith(getenv, map[string][]byte{file: raw, filepath.Join(dir, "general.toml"): raw})
		if err != nil {
			t.Fatalf("merge path rejects what the single-file path accepts: %v", err)
		}
		if shownSplit, err := split.EncodeTOML(); err != nil || !bytes.Equal(shown, shownSplit) {
			t.Fatalf("merge path differs (%v):\n%s\n---\n%s", err, shown, shownSplit)
		}
		cfg2, err := loadWith(getenv, map[string][]byte{file: shown})
		if err != nil {
			t.Fatalf("show output does not load: %v\n%s", err, shown)
		}
		shown2, err := cfg2.EncodeTOML()
		if err != nil || !bytes.Equal(shown, shown2) {
			t.Fatalf("load → show → load is not a fixed point:\n%s\n---\n%s", shown, shown2)
		}
	})
}

func hasNaN(v any) bool {
	switch x := v.(type) {
	case float64:
		return math.IsNaN(x)
	case map[string]any:
		for _, e := range x {
			if hasNaN(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasNaN(e) {
				return true
			}
		}
	case []map[string]any:
		for _, e := range x {
			if hasNaN(e) {
				return true
			}
		}
	}
	return false
}

// normTimes makes TOML date-times comparable after a round trip (the
// encoder writes local date-times with an explicit zone).
func normTimes(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normTimes(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normTimes(e)
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normTimes(e)
		}
		return out
	case interface{ Format(string) string }:
		return x.Format("2006-01-02T15:04:05.999999999")
	}
	return v
}

// FuzzSetKey: the in-place editor never panics, and whatever path it takes
// (in-place edit or re-encode fallback) the result parses and holds exactly
// the original document with the one key changed.
func FuzzSetKey(f *testing.F) {
	f.Add("# c\n[general]\nmax_turns = 3 # x\n", "general.max_turns", int64(4))
	f.Add("[models.a]\nid = \"x\"\n", `models."b.c".id`, int64(1))
	f.Add("models = { a = { id = \"x\" } }\n", "models.a.context_size", int64(2))
	f.Add("[prompts]\np = \"\"\"\n[general]\n\"\"\"\n", "general.max_turns", int64(5))
	f.Add("a.b = 1\n[c]\n", "a.c", int64(7))
	f.Add("[[x]]\ny = 1\n[general]\n", "x.y", int64(3))
	f.Fuzz(func(t *testing.T, src, key string, v int64) {
		path, err := SplitKey(key)
		if err != nil {
			return
		}
		orig := map[string]any{}
		if _, err := toml.Decode(src, &orig); err != nil {
			return
		}
		out, _, err := setKey("f.toml", []byte(src), path, v)
		if err != nil {
			return // e.g. the path crosses a value: refused, nothing to check
		}
		got := map[string]any{}
		if _, err := toml.Decode(string(out), &got); err != nil {
			t.Fatalf("result does not parse: %v\n%s", err, out)
		}
		if err := setTree(orig, path, v); err != nil {
			t.Fatalf("setKey accepted what setTree refuses: %v", err)
		}
		if !hasNaN(orig) && !reflect.DeepEqual(normTimes(orig), normTimes(got)) {
			t.Fatalf("edit changed more than the key:\n%q\n->\n%s", src, out)
		}
	})
}
