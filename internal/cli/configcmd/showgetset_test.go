package configcmd

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
)

const sampleConfig = `# my asky settings
[general]
default_model = "mini" # the everyday one
max_turns = 12

[api.openai]
base_url = "https://api.openai.com/v1"
api_key = "sk-canary-literal"
headers = { Authorization = "Bearer sk-canary-header" }

[models.mini]
api = "openai"
id = "gpt-4o-mini"

[research]
local_document_roots = ["~/notes", "~/papers"]
`

func TestShow(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": sampleConfig, "xmpp.toml": "[xmpp]\npassword = \"sk-canary-xmpp\"\njid = \"bot@x\"\n"})
	if err := e.run("show"); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "show", e.out.String(), "[general]", `default_model = "mini"`, "max_turns = 12", `api_key = "[redacted]"`, `id = "gpt-4o-mini"`, `jid = "bot@x"`)
	wantNot(t, "show", e.out.String()+e.errOut.String(), "canary")

	if err := e.run("show", "--json"); err != nil {
		t.Fatal(err)
	}
	var tree map[string]any
	if err := json.Unmarshal(e.out.Bytes(), &tree); err != nil {
		t.Fatalf("json: %v\n%s", err, e.out.String())
	}
	if tree["general"].(map[string]any)["max_turns"].(float64) != 12 {
		t.Errorf("json general = %v", tree["general"])
	}
	wantNot(t, "show --json", e.out.String(), "canary")
}

func TestShowWithAKeyPointsAtGet(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": sampleConfig})
	err := e.run("show", "general")
	var ce *cmdutil.Error
	if exitCode(err) != 2 || !errors.As(err, &ce) || !strings.Contains(ce.Hint, "`asky config get general`") {
		t.Fatalf("err = %v (%+v)", err, ce)
	}
}

func TestShowWarnsOnStderr(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": "[general]\ndefault_modle = \"x\"\n"})
	if err := e.run("show"); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "stderr", e.errOut.String(), `warning: `, `general.default_modle: unknown key (ignored; did you mean "general.default_model"?)`)
	wantNot(t, "stdout", e.out.String(), "warning")
}

func TestShowMalformed(t *testing.T) {
	e := newEnv(t, map[string]string{"models.toml": "[models.a]\nid = \"x\n"})
	err := e.run("show")
	var pe *config.ParseError
	if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), filepath.Join(e.dir, "models.toml")+":2:") {
		t.Fatalf("err = %v", err)
	}
	if e.out.Len() != 0 {
		t.Errorf("stdout = %q", e.out.String())
	}
}

func TestPath(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": "[general]\n", "models.toml": ""}, "ASKY_DB_PATH", "/elsewhere/h.db")
	if err := e.run("path"); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "path", e.out.String(), "config dir  "+e.dir, "cache dir   "+filepath.Join(e.dir, "cache"), "database    /elsewhere/h.db",
		"files read  "+filepath.Join(e.dir, "config.toml")+"\n            "+filepath.Join(e.dir, "models.toml"))
	if err := e.run("path", "--json"); err != nil {
		t.Fatal(err)
	}
	var p pathInfo
	if err := json.Unmarshal(e.out.Bytes(), &p); err != nil || p.DB != "/elsewhere/h.db" || len(p.Files) != 2 || p.DataDir != e.dir {
		t.Errorf("json %+v %v", p, err)
	}

	empty := newEnv(t, nil)
	if err := empty.run("path", "--json"); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "path --json", empty.out.String(), `"files": []`)
}

func TestPathWithBrokenConfig(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": "[general\n"})
	err := e.run("path")
	var pe *config.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v", err)
	}
	wantContains(t, "path", e.out.String(), "config dir  "+e.dir, "files read  "+filepath.Join(e.dir, "config.toml"))
}

func TestGet(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": sampleConfig})
	tests := []struct {
		args []string
		want string
		code int
		err  string
	}{
		{[]string{"general.default_model"}, "mini\n", 0, ""},
		{[]string{"general.max_turns"}, "12\n", 0, ""},
		{[]string{"general.request_timeout"}, "60\n", 0, ""},
		{[]string{"research.local_document_roots"}, "~/notes\n~/papers\n", 0, ""},
		{[]string{"models.mini.id", "--json"}, "\"gpt-4o-mini\"\n", 0, ""},
		{[]string{"api.openai.api_key"}, "[redacted]\n", 0, ""},
		{[]string{"models.mini"}, "api = \"openai\"\nid = \"gpt-4o-mini\"\n", 0, ""},
		{[]string{"general.max_turn"}, "", 2, `did you mean "general.max_turns"`},
		{[]string{"models.nope.id"}, "", 1, "models.nope.id is not set"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			err := e.run(append([]string{"get"}, tt.args...)...)
			if code := exitCode(err); code != tt.code || tt.err != "" && !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("exit %d err %v, want %d %q", code, err, tt.code, tt.err)
			}
			if e.out.String() != tt.want {
				t.Errorf("stdout %q, want %q", e.out.String(), tt.want)
			}
		})
	}
	if err := e.run("get", "api", "--json"); err != nil {
		t.Fatal(err)
	}
	wantNot(t, "get api", e.out.String(), "canary")
}

func TestSet(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": sampleConfig})
	if err := e.run("set", "general.max_turns", "30"); err != nil {
		t.Fatal(err)
	}
	got := e.read(t, "config.toml")
	want := strings.Replace(sampleConfig, "max_turns = 12", "max_turns = 30", 1)
	if got != want {
		t.Errorf("config.toml:\n%s\nwant:\n%s", got, want)
	}
	wantContains(t, "stderr", e.errOut.String(), "✓ Set general.max_turns = 30 in "+filepath.Join(e.dir, "config.toml"))
	if e.out.Len() != 0 {
		t.Errorf("stdout = %q", e.out.String())
	}
	if st, _ := os.Stat(filepath.Join(e.dir, "config.toml")); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %o", st.Mode().Perm())
	}

	// New key into an existing table; new table appended; list typed.
	if err := e.run("set", "general.summarization_model", "mini"); err != nil {
		t.Fatal(err)
	}
	if err := e.run("set", "memory.recall_top_k", "8"); err != nil {
		t.Fatal(err)
	}
	if err := e.run("set", "research.local_document_roots", "~/a, ~/b"); err != nil {
		t.Fatal(err)
	}
	// A negative value is a value, not a flag.
	if err := e.run("set", "models.mini.parameters.presence_penalty", "-0.5"); err != nil {
		t.Fatal(err)
	}
	got = e.read(t, "config.toml")
	wantContains(t, "config.toml", got, "presence_penalty = -0.5")
	wantContains(t, "config.toml", got, "# my asky settings", "# the everyday one", "max_turns = 30\nsummarization_model = \"mini\"\n", "[memory]\nrecall_top_k = 8\n", `local_document_roots = ["~/a", "~/b"]`)
	cfg, err := e.f.Config()
	if err != nil || cfg.Memory.RecallTopK != 8 || cfg.General.SummarizationModel != "mini" || len(cfg.Research.LocalDocumentRoots) != 2 {
		t.Fatalf("reload: %v %+v", err, cfg)
	}
}

// A valid daemon.* value is written as any other.
func TestSetDaemonKey(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": sampleConfig})
	if err := e.run("set", "daemon.http.listen", "127.0.0.1:9001"); err != nil {
		t.Fatal(err)
	}
	if got := e.read(t, "config.toml"); !strings.Contains(got, `listen = "127.0.0.1:9001"`) {
		t.Fatalf("config.toml:\n%s", got)
	}
}

func TestSetRefusals(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"unknown key", []string{"general.default_modle", "x"}, 2, `did you mean "general.default_model"`},
		{"wrong type", []string{"general.max_turns", "many"}, 2, "expected an integer"},
		{"table", []string{"general", "x"}, 2, "is a table"},
		{"bad api type", []string{"api.openai.type", "gemini"}, 2, `"openai" or "anthropic"`},
		{"missing value", []string{"general.max_turns"}, 2, "needs 2 argument(s), got 1"},
		{"value out of range", []string{"general.max_turns", "-5"}, 2, "general.max_turns: must not be negative, got -5; nothing written"},
		{"daemon value", []string{"daemon.http.listen", "nonsense"}, 2, `daemon.http.listen "nonsense" is not host:port; nothing written`},
		{"daemon port", []string{"daemon.http.listen", "localhost:99999"}, 2, `daemon.http.listen "localhost:99999": the port must be 0-65535; nothing written`},
		{"daemon key", []string{"daemon.http.lisen", "127.0.0.1:1"}, 2, "unknown key daemon.http.lisen"},
		{"alias typo", []string{"models.mimi.price_in", "3"}, 2, `there is no model alias "mimi"; did you mean models.mini.price_in? nothing written`},
		{"endpoint typo", []string{"api.opnai.api_key_env", "K"}, 2, `there is no endpoint "opnai"; did you mean api.openai.api_key_env?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, map[string]string{"config.toml": sampleConfig})
			err := e.run(append([]string{"set"}, tt.args...)...)
			if err == nil || exitCode(err) != tt.code || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err = %v (exit %d), want %d %q", err, exitCode(err), tt.code, tt.err)
			}
			if e.read(t, "config.toml") != sampleConfig {
				t.Error("config.toml changed")
			}
		})
	}
	// A malformed split file blocks writes to any file.
	e := newEnv(t, map[string]string{"config.toml": sampleConfig, "general.toml": "[general\n"})
	err := e.run("set", "general.max_turns", "3")
	var pe *config.ParseError
	if !errors.As(err, &pe) || e.read(t, "config.toml") != sampleConfig || e.read(t, "general.toml") != "[general\n" {
		t.Fatalf("err = %v", err)
	}
}

func TestSetNewModelAndEndpoint(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": sampleConfig})
	for _, kv := range [][2]string{{"api.local.base_url", "http://127.0.0.1:1/v1"}, {"models.qwen.id", "qwen3"}, {"models.qwen.api", "local"}, {"models.mino.id", "gpt-4o"}, {"models.mino.api", "openai"}} {
		if err := e.run("set", kv[0], kv[1]); err != nil {
			t.Fatalf("set %s: %v", kv[0], err)
		}
	}
	// A quoted alias with a dot is one name, not a typo of another.
	if err := e.run("set", "models.gpt-4o.id", "gpt-4o"); err != nil {
		t.Fatal(err)
	}
	if err := e.run("set", `models."gpt-4.1".id`, "gpt-4.1"); err != nil {
		t.Fatalf("quoted alias: %v", err)
	}
	if err := e.run("set", `models."gpt-4.1".context_size`, "64000"); err != nil {
		t.Fatalf("quoted alias: %v", err)
	}
	if m := e.cfg(t).Models["qwen"]; m.ID != "qwen3" || m.API != "local" {
		t.Errorf("model %+v", m)
	}
}

func TestSetSecretAndUnknownDefault(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": sampleConfig})
	if err := e.run("set", "api.openai.api_key", "sk-canary-new"); err != nil {
		t.Fatal(err)
	}
	wantNot(t, "stderr", e.errOut.String(), "canary")
	wantContains(t, "stderr", e.errOut.String(), "[redacted]", "prefer api_key_env")
	if err := e.run("set", "general.default_model", "nosuch"); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "stderr", e.errOut.String(), `"nosuch" is not a configured model alias (have: mini)`)
}

func TestSetWritesToSplitFileThatDefinesKey(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": "[general]\nmax_turns = 5\n", "general.toml": "# split\n[general]\nmax_turns = 9\n"})
	if err := e.run("set", "general.max_turns", "11"); err != nil {
		t.Fatal(err)
	}
	if got := e.read(t, "general.toml"); got != "# split\n[general]\nmax_turns = 11\n" {
		t.Errorf("general.toml = %q", got)
	}
	if got := e.read(t, "config.toml"); got != "[general]\nmax_turns = 5\n" {
		t.Errorf("config.toml = %q", got)
	}
	cfg, _ := e.f.Config()
	if cfg.General.MaxTurns != 11 {
		t.Errorf("effective max_turns = %d", cfg.General.MaxTurns)
	}
}
