package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// home makes a temp ASKY_HOME holding files (name → content, mode 0600)
// and returns a getenv bound to it plus extra variables.
func home(t testing.TB, files map[string]string, env ...string) (string, func(string) string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{"ASKY_HOME": dir, "HOME": dir}
	for i := 0; i+1 < len(env); i += 2 {
		vars[env[i]] = env[i+1]
	}
	return dir, func(k string) string { return vars[k] }
}

func TestLoadMergesSplitFilesOverConfigToml(t *testing.T) {
	_, getenv := home(t, map[string]string{
		"config.toml":  "[general]\ndefault_model = \"a\"\nmax_turns = 7\n[models.a]\napi = \"local\"\nid = \"one\"\ncontext_size = 1000\n[api.local]\nbase_url = \"http://x/v1\"\n",
		"general.toml": "[general]\nmax_turns = 9\n",
		"models.toml":  "[models.a]\nid = \"two\"\n[models.b]\napi = \"local\"\n",
		"xmpp.toml":    "[xmpp]\njid = \"bot@example.org\"\n",
	})
	cfg, err := Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.General.MaxTurns != 9 || cfg.General.DefaultModel != "a" {
		t.Errorf("general = %+v", cfg.General)
	}
	if m := cfg.Models["a"]; m.ID != "two" || m.ContextSize != 1000 || m.API != "local" {
		t.Errorf("models.a = %+v (want split file's id merged over config.toml's table)", m)
	}
	if got := strings.Join(cfg.Aliases(), ","); got != "a,b" {
		t.Errorf("aliases = %s", got)
	}
	if len(cfg.Files) != 4 || filepath.Base(cfg.Files[0]) != "config.toml" || filepath.Base(cfg.Files[3]) != "xmpp.toml" {
		t.Errorf("files = %v", cfg.Files)
	}
	if cfg.XMPP.JID != "bot@example.org" {
		t.Errorf("xmpp = %v", cfg.XMPP)
	}
	if o := cfg.Origin("models.a.id"); filepath.Base(o) != "models.toml" {
		t.Errorf("origin of models.a.id = %q", o)
	}
	if o := cfg.Origin("models.a.context_size"); filepath.Base(o) != "config.toml" {
		t.Errorf("origin of models.a.context_size = %q", o)
	}
	if cfg.Research.ChunkSize != 256 {
		t.Errorf("defaults lost: chunk_size = %d", cfg.Research.ChunkSize)
	}
}

func TestLoadNoFilesGivesDefaults(t *testing.T) {
	dir, getenv := home(t, nil)
	cfg, err := Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Files) != 0 || cfg.General.MaxTurns != 20 || len(cfg.Diagnostics) != 0 {
		t.Errorf("files=%v max_turns=%d diags=%v", cfg.Files, cfg.General.MaxTurns, cfg.Diagnostics)
	}
	if cfg.Paths.DB != filepath.Join(dir, "asky.db") {
		t.Errorf("db = %s", cfg.Paths.DB)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name      string
		file      string
		body      string
		line, col int
		msg       string
	}{
		{"unclosed table", "config.toml", "[general\nmax_turns = 3\n", 1, 9, ""},
		{"bad value", "config.toml", "[general]\nmax_turns = = 3\n", 2, 13, ""},
		{"duplicate key", "config.toml", "[general]\nmax_turns = 3\nmax_turns = 4\n", 3, 1, "max_turns"},
		{"string for int", "config.toml", "[general]\n\nmax_turns = \"ten\"\n", 3, 13, "general.max_turns: expected an integer, got a string"},
		{"float for int", "models.toml", "[models.a]\ncontext_size = 1.5\n", 2, 16, "expected an integer"},
		{"table is scalar", "general.toml", "general = 3\n", 1, 11, "general"},
		{"array for string", "config.toml", "[general]\ndefault_model = [1]\n", 2, 17, "expected a string"},
		{"int overflow", "config.toml", "[general]\nmax_turns = 99999999999999999999\n", 2, 13, "out of range"},
		{"bom then error", "config.toml", "\xef\xbb\xbf[general]\nmax_turns = \"x\"\n", 2, 13, "expected an integer"},
		{"nul byte", "config.toml", "[general]\nx = \"a\x00b\"\n", 2, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, getenv := home(t, map[string]string{tt.file: tt.body})
			_, err := Load(getenv)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v (%T), want *ParseError", err, err)
			}
			if pe.File != filepath.Join(dir, tt.file) || pe.Line != tt.line || tt.col > 0 && pe.Col != tt.col && tt.col != 1 {
				t.Errorf("got %s:%d:%d, want %s:%d:%d (%s)", pe.File, pe.Line, pe.Col, tt.file, tt.line, tt.col, pe.Message)
			}
			if pe.Line < 1 || pe.Col < 1 {
				t.Errorf("position %d:%d", pe.Line, pe.Col)
			}
			if !strings.Contains(pe.Error(), tt.msg) || !strings.HasPrefix(pe.Error(), pe.File+":") {
				t.Errorf("error %q does not contain %q", pe.Error(), tt.msg)
			}
		})
	}
}

func TestLoadInvalidAPIType(t *testing.T) {
	dir, getenv := home(t, map[string]string{"api.toml": "[api.x]\nbase_url = \"http://h\"\ntype = \"gemini\"\n"})
	_, err := Load(getenv)
	var ve *ValueError
	if !errors.As(err, &ve) || ve.File != filepath.Join(dir, "api.toml") || ve.Key != "api.x.type" {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadRejectsBaseURLWithoutScheme(t *testing.T) {
	tests := []struct{ name, body, key, line string }{
		{"api base_url", "[api.x]\nbase_url = \"127.0.0.1:11434/v1\"\n", "api.x.base_url", ":2:"},
		{"original url", "[api.x]\nurl = \"localhost:1234/v1/chat/completions\"\n", "api.x.url", ":2:"},
		{"model base_url", "[api.x]\nbase_url = \"http://h/v1\"\n[models.m]\napi = \"x\"\nid = \"m\"\nbase_url = \"ftp://h\"\n", "models.m.base_url", ":6:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, getenv := home(t, map[string]string{"config.toml": tt.body})
			_, err := Load(getenv)
			var ve *ValueError
			if !errors.As(err, &ve) || ve.Key != tt.key || !strings.Contains(err.Error(), tt.line) || !strings.Contains(err.Error(), "http:// or https://") {
				t.Fatalf("err = %v, want %s%s rejected", err, tt.key, tt.line)
			}
		})
	}
	_, getenv := home(t, map[string]string{"config.toml": "[api.x]\nbase_url = \"https://h.example/v1/\"\n"})
	if _, err := Load(getenv); err != nil {
		t.Fatalf("a good base_url: %v", err)
	}
}

func TestLoadKeyCase(t *testing.T) {
	for _, body := range []string{"[general]\nMax_Turns = 3\n", "[General]\nmax_turns = 3\n", "[models.GPT]\nAPI = \"x\"\n"} {
		dir, getenv := home(t, map[string]string{"config.toml": body})
		_, err := Load(getenv)
		var ve *ValueError
		if !errors.As(err, &ve) || ve.File != filepath.Join(dir, "config.toml") || !strings.Contains(err.Error(), "key names are case-sensitive; write ") {
			t.Errorf("%q: err = %v", body, err)
		}
	}
	// Alias names are the user's: any case is fine.
	_, getenv := home(t, map[string]string{"config.toml": "[models.GPT]\napi = \"x\"\n"})
	if cfg, err := Load(getenv); err != nil || cfg.Models["GPT"].API != "x" {
		t.Errorf("alias case: %v", err)
	}
}

func TestLoadUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		// root reads any file; a directory in its place is unreadable as a file for everyone.
		dir, getenv := home(t, nil)
		if err := os.Mkdir(filepath.Join(dir, "config.toml"), 0o700); err != nil {
			t.Fatal(err)
		}
		_, err := Load(getenv)
		var re *ReadError
		if !errors.As(err, &re) || re.File != filepath.Join(dir, "config.toml") || strings.Count(err.Error(), "config.toml") != 1 {
			t.Fatalf("err = %v", err)
		}
		return
	}
	dir, getenv := home(t, map[string]string{"config.toml": "[general]\n"})
	if err := os.Chmod(filepath.Join(dir, "config.toml"), 0); err != nil {
		t.Fatal(err)
	}
	_, err := Load(getenv)
	var re *ReadError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadDiagnostics(t *testing.T) {
	tests := []struct {
		name string
		body string
		mode os.FileMode
		want []string // substrings of the diagnostics, in order
	}{
		{"typo in key", "[general]\ndefault_modle = \"x\"\n", 0o600, []string{`general.default_modle: unknown key (ignored; did you mean "general.default_model"?)`}},
		{"typo in table", "[generl]\nmax_turns = 3\n", 0o600, []string{`generl: unknown key (ignored; did you mean "general"?)`}},
		{"typo in model key", "[models.a]\napi = \"x\"\ncontext = 3\n", 0o600, []string{`models.a.context: unknown key (ignored; did you mean "models.a.context_size"?)`}},
		{"far from anything", "[general]\nzzzzzzzz = 1\n", 0o600, []string{"general.zzzzzzzz: unknown key (ignored)"}},
		{"original's keys accepted", "[general]\nlog_level = \"INFO\"\n[models.a]\napi = \"x\"\n[models.a.parameters]\ntemperature = 0.2\n", 0o600, nil},
		{"literal key world-readable", "[api.x]\nbase_url = \"http://h\"\napi_key = \"sk-canary\"\n", 0o644, []string{"api.x.api_key: literal secret in a file readable by others (mode 0644)"}},
		{"literal key private", "[api.x]\nbase_url = \"http://h\"\napi_key = \"sk-canary\"\n", 0o600, nil},
		{"xmpp password group-readable", "[xmpp]\npassword = \"pw\"\n", 0o640, []string{"xmpp.password: literal secret"}},
		{"xmpp typo", "[xmpp]\nallowed_jid = [\"a@b\"]\n", 0o600, []string{`xmpp.allowed_jid: unknown key (ignored; did you mean "xmpp.allowed_jids"?)`}},
		{"original's xmpp keys accepted", "[xmpp]\nenabled = false\ntranscript_max_per_session = 200\ninterface_planner_include_command_reference = true\n", 0o600, nil},
		{"original's inert keys at their defaults", "[general]\ncompact_banner = false\n[research]\nmax_links_per_url = 50\n[summarizer]\nlazy_threshold_chars = 2000\n", 0o600, nil},
		{"original's inert keys changed", "[general]\ncompact_banner = true\n[models.a]\napi = \"x\"\nimage_support = true\n[research]\nmemory_max_results = 3\nenabled = false\n", 0o600, []string{
			"general.compact_banner: kept from the original asky; this version has no such feature",
			"models.a.image_support: kept from the original asky",
			"research.memory_max_results: kept from the original asky",
			"research.enabled: kept from the original asky"}},
		{"original's unused keys at their defaults", "[general]\nlog_level = \"INFO\"\ncontinue_query_threshold = 160\ninterface_model = \"\"\n[research]\nsummarization_workers = 2\n[research.chromadb]\nchunks_collection = \"asky_content_chunks\"\n[memory]\nchroma_collection = \"asky_user_memories\"\n", 0o600, nil},
		{"original's unused keys changed", "[general]\nlog_level = \"DEBUG\"\ninterface_model = \"q8\"\ndefault_image_model = \"vision\"\n[xmpp]\ntranscript_max_per_session = 5\n[research.chromadb]\npersist_directory = \"/x\"\n", 0o600, []string{
			"general.log_level: kept from the original asky; this version has no such feature",
			"general.default_image_model: kept from the original asky",
			"xmpp.transcript_max_per_session: kept from the original asky",
			"research.chromadb.persist_directory: kept from the original asky"}},
		{"env name is not a secret", "[api.x]\nbase_url = \"http://h\"\napi_key_env = \"X\"\n", 0o644, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, getenv := home(t, map[string]string{"config.toml": tt.body})
			if err := os.Chmod(filepath.Join(dir, "config.toml"), tt.mode); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(getenv)
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg.Diagnostics) != len(tt.want) {
				t.Fatalf("diagnostics = %v, want %d", cfg.Diagnostics, len(tt.want))
			}
			for i, w := range tt.want {
				d := cfg.Diagnostics[i]
				if d.File != filepath.Join(dir, "config.toml") || !strings.Contains(d.String(), w) {
					t.Errorf("diagnostic %q, want %q", d.String(), w)
				}
				if strings.Contains(d.String(), "sk-canary") {
					t.Errorf("diagnostic leaks the key: %s", d)
				}
			}
		})
	}
}

func TestLoadOriginalURLAndTypes(t *testing.T) {
	_, getenv := home(t, map[string]string{"api.toml": `
[api.openai]
url = "https://api.openai.com/v1/chat/completions"
api_key_env = "OPENAI_API_KEY"
[api.anthropic]
url = "https://api.anthropic.com/v1/messages"
[api.claude]
type = "anthropic"
base_url = "https://proxy.example/v1/"
[api.lmstudio]
url = "http://localhost:1234/v1/chat/completions/"
api_key = "lm-studio"
`})
	cfg, err := Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"openai":    {"openai", "https://api.openai.com/v1"},
		"anthropic": {"anthropic", "https://api.anthropic.com/v1"},
		"claude":    {"anthropic", "https://proxy.example/v1"},
		"lmstudio":  {"openai", "http://localhost:1234/v1"},
	}
	for name, w := range want {
		a := cfg.API[name]
		if a.Type != w[0] || a.BaseURL != w[1] {
			t.Errorf("api.%s = %s %s, want %v", name, a.Type, a.BaseURL, w)
		}
	}
	if cfg.API["lmstudio"].APIKey.Reveal() != "lm-studio" {
		t.Error("literal key not read")
	}
}

func TestPaths(t *testing.T) {
	tests := []struct {
		name                    string
		env                     map[string]string
		config, data, cache, db string
	}{
		{"asky home", map[string]string{"ASKY_HOME": "/h", "XDG_CONFIG_HOME": "/x"}, "/h", "/h", "/h/cache", "/h/asky.db"},
		{"asky home tilde", map[string]string{"ASKY_HOME": "~/a", "HOME": "/home/u"}, "/home/u/a", "/home/u/a", "/home/u/a/cache", "/home/u/a/asky.db"},
		{"xdg", map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_CACHE_HOME": "/k"}, "/c/asky", "/d/asky", "/k/asky", "/d/asky/asky.db"},
		{"xdg defaults", map[string]string{"HOME": "/home/u"}, "/home/u/.config/asky", "/home/u/.local/share/asky", "/home/u/.cache/asky", "/home/u/.local/share/asky/asky.db"},
		{"relative xdg ignored", map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "rel"}, "/home/u/.config/asky", "/home/u/.local/share/asky", "/home/u/.cache/asky", "/home/u/.local/share/asky/asky.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := ResolvePaths(func(k string) string { return tt.env[k] })
			if p.ConfigDir != tt.config || p.DataDir != tt.data || p.CacheDir != tt.cache || p.DB != tt.db {
				t.Errorf("got %+v", p)
			}
		})
	}
}

func TestDBPathOverrides(t *testing.T) {
	dir, getenv := home(t, map[string]string{"general.toml": "[general]\ndb_path = \"data/h.db\"\n"})
	cfg, err := Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Paths.DB != filepath.Join(dir, "data/h.db") {
		t.Errorf("db_path relative to config dir: %s", cfg.Paths.DB)
	}
	_, getenv = home(t, map[string]string{"general.toml": "[general]\ndb_path = \"/x/h.db\"\n"}, "ASKY_DB_PATH", "/env/e.db")
	if cfg, err = Load(getenv); err != nil || cfg.Paths.DB != "/env/e.db" {
		t.Errorf("ASKY_DB_PATH: %v %v", cfg.Paths.DB, err)
	}
	_, getenv = home(t, map[string]string{"general.toml": "[general]\ndb_path_env_var = \"MY_DB\"\n"}, "MY_DB", "/mine.db", "ASKY_DB_PATH", "/ignored.db")
	if cfg, err = Load(getenv); err != nil || cfg.Paths.DB != "/mine.db" {
		t.Errorf("db_path_env_var: %v %v", cfg.Paths.DB, err)
	}
}

func TestBOMTolerated(t *testing.T) {
	_, getenv := home(t, map[string]string{"config.toml": "\xef\xbb\xbf[general]\nmax_turns = 4\n"})
	cfg, err := Load(getenv)
	if err != nil || cfg.General.MaxTurns != 4 {
		t.Fatalf("cfg=%v err=%v", cfg, err)
	}
}

func TestLoadNegativeRetryLimits(t *testing.T) {
	dir, getenv := home(t, map[string]string{"config.toml": "[limits]\nretry_budget = -5\n"})
	_, err := Load(getenv)
	var ve *ValueError
	if !errors.As(err, &ve) || ve.File != filepath.Join(dir, "config.toml") || ve.Key != "limits.retry_budget" {
		t.Fatalf("err = %v", err)
	}
}

func TestDefaultRetriesAreBounded(t *testing.T) {
	l := Defaults().Limits
	if l.MaxRetries > 3 || l.RetryBudget <= 0 || l.RetryBudget > 30 {
		t.Errorf("default retries %d, budget %ds; want at most 3 and 30 s", l.MaxRetries, l.RetryBudget)
	}
}

func TestLoadMarkdownStyle(t *testing.T) {
	_, getenv := home(t, map[string]string{"config.toml": "[general]\nmarkdown_style = \"neon\"\n"})
	var ve *ValueError
	if _, err := Load(getenv); !errors.As(err, &ve) || ve.Key != "general.markdown_style" {
		t.Fatalf("err = %v", err)
	}
	_, getenv = home(t, map[string]string{"config.toml": "[general]\nmarkdown_style = \"light\"\n"})
	if cfg, err := Load(getenv); err != nil || cfg.General.MarkdownStyle != "light" {
		t.Fatalf("light: %v", err)
	}
	if Defaults().General.MarkdownStyle != "auto" {
		t.Error("the default style must follow the terminal")
	}
}

// A value outside a key's fixed set is refused at load, naming the key,
// its line and the choices; the allowed ones (any case for the provider)
// load.
func TestLoadEnumValues(t *testing.T) {
	_, getenv := home(t, map[string]string{"config.toml": "[general]\nsearch_provider = \"bing\"\n[session]\ncompaction_strategy = \"foo\"\n"})
	_, err := Load(getenv)
	for _, want := range []string{`config.toml:2: general.search_provider: "bing" is not one of duckduckgo`, `config.toml:4: session.compaction_strategy: "foo" is not one of summary_concat, llm_summary`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
	_, getenv = home(t, map[string]string{"config.toml": "[general]\nsearch_provider = \"SearXNG\"\n[session]\ncompaction_strategy = \"llm_summary\"\n"})
	if _, err := Load(getenv); err != nil {
		t.Fatalf("allowed values: %v", err)
	}
}

// Every problem is reported in one run, sorted by file and line, instead
// of one per run in map order.
func TestLoadReportsAllErrorsSorted(t *testing.T) {
	dir, getenv := home(t, map[string]string{
		"config.toml":   "[general]\nmax_turns = -1\nrequest_timeout = 30\n\n[research]\nchunk_size = -5\nchunk_overlap = 10\n\n[models.m]\napi = \"a\"\ncontext_size = -100\nprice_in = -0.5\n",
		"api.toml":      "[api.a]\nbase_url = \"http://h\"\ntype = \"gemini\"\n",
		"research.toml": "[research]\nmax_chunks_per_retrieval = -3\n",
	})
	_, err := Load(getenv)
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("err = %T %v, want Errors", err, err)
	}
	cfgFile, apiFile, resFile := filepath.Join(dir, "config.toml"), filepath.Join(dir, "api.toml"), filepath.Join(dir, "research.toml")
	want := []string{
		apiFile + ":3: api.a.type:",
		cfgFile + ":2: general.max_turns: must not be negative, got -1",
		cfgFile + ":6: research.chunk_size: must not be negative, got -5",
		cfgFile + ":11: models.m.context_size: must not be negative, got -100",
		cfgFile + ":12: models.m.price_in: must be a positive USD price",
		resFile + ":2: research.max_chunks_per_retrieval: must not be negative, got -3",
	}
	got := errs.Messages()
	if len(got) != len(want) {
		t.Fatalf("got %d errors:\n%s", len(got), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %d = %q, want prefix %q", i, got[i], want[i])
		}
	}
}

func TestLoadReportsParseErrorsOfEveryFile(t *testing.T) {
	_, getenv := home(t, map[string]string{
		"config.toml": "[general]\ndefault_model = = \"x\"\n",
		"memory.toml": "[memory\n",
	})
	_, err := Load(getenv)
	var errs Errors
	if !errors.As(err, &errs) || len(errs) != 2 {
		t.Fatalf("err = %v", err)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatal("the parse errors are not reachable with errors.As")
	}
}

func TestLoadXMPPValues(t *testing.T) {
	_, getenv := home(t, map[string]string{"xmpp.toml": "[xmpp]\nenabled = true\njid = \"bot@example.org\"\nallowed_jids = [\"me@example.org\"]\nca_file = \"/etc/ca.pem\"\n"})
	cfg, err := Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	x := cfg.XMPP
	if !x.Enabled || x.Port != 5222 || x.Resource != "asky" || x.ResponseChunkChars != 3000 || x.PasswordEnv != "ASKY_XMPP_PASSWORD" || x.CAFile != "/etc/ca.pem" || len(x.AllowedJIDs) != 1 {
		t.Fatalf("%+v", x)
	}
	_, getenv = home(t, map[string]string{"xmpp.toml": "[xmpp]\nresponse_chunk_chars = -1\n"})
	if _, err := Load(getenv); err == nil || !strings.Contains(err.Error(), "xmpp.response_chunk_chars") {
		t.Fatalf("err = %v", err)
	}
}

// DocumentRoots expands ~ for every consumer (the remote policy, chat
// uploads), while the loaded value stays as written.
func TestDocumentRootsExpandHome(t *testing.T) {
	_, getenv := home(t, map[string]string{"config.toml": "[research]\nlocal_document_roots = [\"~/docs\", \"/srv/papers\"]\n"})
	env := func(k string) string {
		if k == "HOME" {
			return "/home/u"
		}
		return getenv(k)
	}
	cfg, err := Load(env)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.DocumentRoots(env); len(got) != 2 || got[0] != "/home/u/docs" || got[1] != "/srv/papers" {
		t.Fatalf("roots = %v", got)
	}
}

// The original's bundled research.toml loads quietly and its embedding
// model name maps to the builtin embedder distilled from it.
func TestLoadOriginalEmbedding(t *testing.T) {
	cfg, _ := loadQuiet(t, map[string]string{"research.toml": `
[research.embedding]
model = "all-MiniLM-L6-v2"
batch_size = 32
device = "cpu"
normalize = true
local_files_only = false
`})
	if got, want := cfg.Research.Embedding.Model, Defaults().Research.Embedding.Model; got != want {
		t.Errorf("embedding model = %q, want %q", got, want)
	}
}

// loadQuiet loads a home with files and fails on any diagnostic.
func loadQuiet(t *testing.T, files map[string]string) (*Config, func(string) string) {
	t.Helper()
	_, getenv := home(t, files)
	cfg, err := Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Diagnostics) != 0 {
		t.Errorf("diagnostics: %v", cfg.Diagnostics)
	}
	return cfg, getenv
}
