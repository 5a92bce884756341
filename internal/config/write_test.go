package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEditTOML(t *testing.T) {
	tests := []struct {
		name string
		src  string
		key  string
		lit  string
		want string
	}{
		{"replace keeps comments", "# mine\n[general]\nmax_turns = 3 # turns\nx = 1\n", "general.max_turns", "9", "# mine\n[general]\nmax_turns = 9 # turns\nx = 1\n"},
		{"insert into table", "[general]\nmax_turns = 3\n\n# models\n[models.a]\nid = \"x\"\n", "general.default_model", `"a"`, "[general]\nmax_turns = 3\ndefault_model = \"a\"\n\n# models\n[models.a]\nid = \"x\"\n"},
		{"new table appended", "[general]\nmax_turns = 3\n", "models.gpt.id", `"gpt-4o"`, "[general]\nmax_turns = 3\n\n[models.gpt]\nid = \"gpt-4o\"\n"},
		{"empty file", "", "general.max_turns", "4", "[general]\nmax_turns = 4\n"},
		{"quoted alias", "[models.\"gpt-4.1\"]\nid = \"a\"\n", `models."gpt-4.1".id`, `"b"`, "[models.\"gpt-4.1\"]\nid = \"b\"\n"},
		{"multi-line value replaced", "[research]\nlocal_document_roots = [\n  \"/a\", # first\n  \"/b\",\n]\nchunk_size = 1\n", "research.local_document_roots", `["/c"]`, "[research]\nlocal_document_roots = [\"/c\"]\nchunk_size = 1\n"},
		{"hash inside string", "[general]\nuser_agent = \"a#b\" # c\n", "general.user_agent", `"z"`, "[general]\nuser_agent = \"z\" # c\n"},
		{"multi-line string before", "[prompts]\nsystem_prefix = \"\"\"\n[general]\nmax_turns = 1\n\"\"\"\n[general]\nmax_turns = 2\n", "general.max_turns", "5", "[prompts]\nsystem_prefix = \"\"\"\n[general]\nmax_turns = 1\n\"\"\"\n[general]\nmax_turns = 5\n"},
		{"dotted key in the model's table", "[models.a]\nid = \"x\"\n\n[general]\n", "models.a.parameters.temperature", "0.2", "[models.a]\nid = \"x\"\nparameters.temperature = 0.2\n\n[general]\n"},
		{"new alias under [models] gets its own table", "[models]\n[models.a]\nid = \"x\"\n", "models.b.id", `"y"`, "[models]\n[models.a]\nid = \"x\"\n\n[models.b]\nid = \"y\"\n"},
		{"crlf kept", "[general]\r\nmax_turns = 3\r\n", "general.max_turns", "4", "[general]\r\nmax_turns = 4\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, err := SplitKey(tt.key)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(editTOML([]byte(tt.src), path, tt.lit)); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestSetKeyFallsBackToReencode(t *testing.T) {
	// An inline table cannot be edited in place; the result must still be right.
	src := []byte("# comment\nmodels = { a = { id = \"x\" } }\n")
	out, reenc, err := setKey("f", src, []string{"models", "a", "id"}, "y")
	if err != nil || !reenc {
		t.Fatalf("reenc=%v err=%v", reenc, err)
	}
	if !strings.Contains(string(out), `id = "y"`) {
		t.Errorf("out = %s", out)
	}
	out, reenc, _ = setKey("f", []byte("# keep\n[general]\nmax_turns = 1\n"), []string{"general", "max_turns"}, int64(2))
	if reenc || !strings.HasPrefix(string(out), "# keep\n") {
		t.Errorf("in-place edit expected: %s", out)
	}
}

func TestParseValue(t *testing.T) {
	tests := []struct {
		key, text string
		want      any
		wantErr   string
	}{
		{"general.max_turns", "12", int64(12), ""},
		{"general.max_turns", "twelve", nil, "expected an integer"},
		{"general.default_model", "gpt", "gpt", ""},
		{"general.shortlist_enabled", "true", true, ""},
		{"general.shortlist_enabled", "yes", nil, "expected true or false"},
		{"memory.recall_min_similarity", "0.4", 0.4, ""},
		{"research.local_document_roots", "/a, /b", []string{"/a", "/b"}, ""},
		{"research.local_document_roots", `["/a"]`, []string{"/a"}, ""},
		{"models.gpt.parameters.temperature", "0.2", 0.2, ""},
		{"models.gpt.parameters.stop", "END", "END", ""},
		{"api.x.type", "gemini", nil, `"openai" or "anthropic"`},
		{"general.default_modle", "x", nil, `did you mean "general.default_model"`},
		{"genral.default_model", "x", nil, `did you mean "general.default_model"`},
		{"genral.no_such_key", "x", nil, `did you mean "general"`},
		{"general", "x", nil, "is a table"},
		{"nonsense", "x", nil, "unknown config key"},
		{"general.max_turns.x", "1", nil, "not a table"},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.text, func(t *testing.T) {
			got, err := ParseValue(tt.key, tt.text)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if lg, lw := mustLit(t, got), mustLit(t, tt.want); lg != lw {
				t.Errorf("got %s, want %s", lg, lw)
			}
		})
	}
}

func mustLit(t *testing.T, v any) string {
	t.Helper()
	s, err := tomlLiteral(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestApply(t *testing.T) {
	dir, getenv := home(t, map[string]string{
		"config.toml": "# my settings\n[general]\nmax_turns = 3\n",
		"models.toml": "# models\n[models.a]\napi = \"openai\"\nid = \"x\"\n",
	})
	w, err := Apply(getenv,
		Change{Key: "general.default_model", Value: "a"},
		Change{Key: "models.a.context_size", Value: int64(8000)},
		Change{Key: "models.b.id", Value: "y"},
		Change{Key: "models.b.api", Value: "openai"},
	)
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 2 || filepath.Base(w[0].File) != "config.toml" || filepath.Base(w[1].File) != "models.toml" || w[0].Reencoded || w[1].Reencoded {
		t.Fatalf("written = %+v", w)
	}
	main, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
	models, _ := os.ReadFile(filepath.Join(dir, "models.toml"))
	// New aliases go where the models already live (models.toml).
	if !strings.HasPrefix(string(main), "# my settings\n") || strings.Contains(string(main), "[models.b]") || !strings.Contains(string(models), "[models.b]") {
		t.Errorf("config.toml:\n%s", main)
	}
	if !strings.HasPrefix(string(models), "# models\n") || !strings.Contains(string(models), "context_size = 8000") {
		t.Errorf("models.toml:\n%s", models)
	}
	for _, f := range []string{"config.toml", "models.toml"} {
		st, _ := os.Stat(filepath.Join(dir, f))
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %o", f, st.Mode().Perm())
		}
	}
	cfg, err := Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.General.DefaultModel != "a" || cfg.Models["a"].ContextSize != 8000 || cfg.Models["b"].ID != "y" {
		t.Errorf("reloaded: %+v %+v", cfg.General, cfg.Models)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}

func TestApplyWritesNothingOnError(t *testing.T) {
	orig := "[general]\nmax_turns = 3\n"
	dir, getenv := home(t, map[string]string{"config.toml": orig})
	if _, err := Apply(getenv, Change{Key: "api.x.type", Value: "bogus"}); err == nil {
		t.Fatal("invalid type accepted")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "config.toml")); string(got) != orig {
		t.Errorf("file changed: %s", got)
	}
	// A malformed file is never rewritten.
	bad := "[general\n"
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(getenv, Change{Key: "general.max_turns", Value: int64(2)}); err == nil {
		t.Fatal("edit of a malformed file accepted")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "config.toml")); string(got) != bad {
		t.Errorf("file changed: %s", got)
	}
}

func TestApplyCreatesPrivateDirAndFollowsSymlink(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "new", "asky")
	getenv := func(k string) string { return map[string]string{"ASKY_HOME": dir}[k] }
	if _, err := Apply(getenv, Change{Key: "general.max_turns", Value: int64(5)}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("dir: %v %v", st, err)
	}
	// A dotfile-managed symlink stays a symlink; its target is updated.
	target := filepath.Join(base, "dotfiles.toml")
	if err := os.WriteFile(target, []byte("[general]\nmax_turns = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config.toml")
	os.Remove(link)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(getenv, Change{Key: "general.max_turns", Value: int64(6)}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("symlink replaced by a file")
	}
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), "max_turns = 6") {
		t.Errorf("target = %s", b)
	}
}

func TestRedactionAndLookup(t *testing.T) {
	_, getenv := home(t, map[string]string{"config.toml": `
[api.x]
base_url = "http://h"
api_key = "sk-canary-1"
headers = { Authorization = "Bearer sk-canary-2", X-Title = "asky" }
[xmpp]
jid = "a@b"
password = "sk-canary-3"
password_env = "XMPP_PW"
[models.m]
api = "x"
id = "mid"
`})
	cfg, err := Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cfg.EncodeTOML()
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if strings.Contains(s, "canary") {
		t.Errorf("secret in show output:\n%s", s)
	}
	for _, want := range []string{`api_key = "[redacted]"`, `X-Title = "asky"`, `password_env = "XMPP_PW"`, "[general]", "max_turns = 20"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in:\n%s", want, s)
		}
	}
	if cfg.API["x"].APIKey.Reveal() != "sk-canary-1" || cfg.API["x"].Headers["Authorization"] != "Bearer sk-canary-2" {
		t.Error("Redacted modified the original")
	}
	tests := []struct {
		key  string
		want string
		ok   bool
	}{
		{"general.max_turns", "20", true},
		{"models.m.id", `"mid"`, true},
		{"models.m.price_in", "0.0", true},
		{"api.x.api_key", `"[redacted]"`, true},
		{"xmpp.password", `"[redacted]"`, true},
		{"models.zz.id", "", false},
	}
	for _, tt := range tests {
		v, ok, err := cfg.Lookup(tt.key)
		if err != nil || ok != tt.ok {
			t.Errorf("%s: ok=%v err=%v", tt.key, ok, err)
			continue
		}
		if ok && mustLit(t, v) != tt.want {
			t.Errorf("%s = %s, want %s", tt.key, mustLit(t, v), tt.want)
		}
	}
	if _, _, err := cfg.Lookup("general.maxturns"); err == nil || !strings.Contains(err.Error(), "general.max_turns") {
		t.Errorf("typo: %v", err)
	}
}

func TestReadJSONFile(t *testing.T) {
	dir := t.TempDir()
	var v map[string]int
	if found, err := ReadJSONFile("", &v); found || err != nil {
		t.Fatalf("empty path: %v %v", found, err)
	}
	if found, err := ReadJSONFile(filepath.Join(dir, "none.json"), &v); found || err != nil || v != nil {
		t.Fatalf("missing file: %v %v %v", found, err, v)
	}
	good := filepath.Join(dir, "good.json")
	if err := WriteFileAtomic(good, []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if found, err := ReadJSONFile(good, &v); !found || err != nil || v["a"] != 1 {
		t.Fatalf("good file: %v %v %v", found, err, v)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := WriteFileAtomic(bad, []byte(`{"a":`)); err != nil {
		t.Fatal(err)
	}
	if found, err := ReadJSONFile(bad, &v); !found || err == nil {
		t.Fatalf("damaged file: %v %v", found, err)
	}
}
