package configcmd

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
)

func (e *testEnv) cfg(t *testing.T) *config.Config {
	t.Helper()
	cfg, err := e.f.Config()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestModelAddFlags(t *testing.T) {
	e := newEnv(t, nil)
	if err := e.run("model", "add", "--alias", "qwen", "--base-url", "http://127.0.0.1:11434/v1", "--id", "qwen3:8b", "--context-size", "32768", "--price-in", "0.5"); err != nil {
		t.Fatal(err)
	}
	want := "[general]\ndefault_model = \"qwen\"\n\n[models.qwen]\napi = \"qwen\"\nid = \"qwen3:8b\"\ncontext_size = 32768\nprice_in = 0.5\n\n[api.qwen]\nbase_url = \"http://127.0.0.1:11434/v1\"\ntype = \"openai\"\n"
	if got := e.read(t, "config.toml"); got != want {
		t.Errorf("config.toml:\n%s\nwant:\n%s", got, want)
	}
	wantContains(t, "stderr", e.errOut.String(), "✓ Added model qwen (qwen3:8b via qwen, now the default)")

	// Second model on a built-in endpoint: no [api] table needed.
	if err := e.run("model", "add", "--alias", "mini", "--api", "openai", "--id", "gpt-4o-mini"); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "stderr", e.errOut.String(), "warning: OPENAI_API_KEY is not set in this environment")
	cfg := e.cfg(t)
	r, err := cfg.ResolveModel(context.Background(), "mini", config.Env{Getenv: func(k string) string { return map[string]string{"OPENAI_API_KEY": "k"}[k] }})
	if err != nil || r.BaseURL != "https://api.openai.com/v1" || cfg.General.DefaultModel != "qwen" {
		t.Fatalf("resolve mini: %+v %v (default %s)", r, err, cfg.General.DefaultModel)
	}
	// --key-cmd on a built-in endpoint writes a complete [api] table.
	if err := e.run("model", "add", "--alias", "sonnet", "--api", "anthropic", "--id", "claude-x", "--key-cmd", "pass show anthropic", "--default"); err != nil {
		t.Fatal(err)
	}
	cfg = e.cfg(t)
	a := cfg.API["anthropic"]
	if a.BaseURL != "https://api.anthropic.com/v1" || a.Type != "anthropic" || a.APIKeyCmd != "pass show anthropic" || cfg.General.DefaultModel != "sonnet" {
		t.Errorf("api.anthropic = %+v default=%s", a, cfg.General.DefaultModel)
	}
}

func TestModelAddBaseURLNeverRepointsAnEndpoint(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": "[models.gpt]\napi = \"openai\"\nid = \"gpt-4o\"\n"})
	if err := e.run("model", "add", "--alias", "local", "--api", "openai", "--base-url", "http://127.0.0.1:8080/v1", "--id", "qwen"); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "stderr", e.errOut.String(), "new endpoint [api.local] at http://127.0.0.1:8080/v1; [api.openai] is unchanged")
	if strings.Contains(e.errOut.String(), "OPENAI_API_KEY") {
		t.Errorf("a local server needs no OpenAI key:\n%s", e.errOut)
	}
	cfg := e.cfg(t)
	if _, ok := cfg.API["openai"]; ok {
		t.Errorf("[api.openai] written: %+v", cfg.API["openai"])
	}
	if a := cfg.API["local"]; a.BaseURL != "http://127.0.0.1:8080/v1" || a.Type != "openai" || a.APIKeyEnv != "" {
		t.Errorf("api.local = %+v", a)
	}
	r, err := cfg.ResolveModel(context.Background(), "local", config.Env{Getenv: func(string) string { return "" }})
	if err != nil || r.BaseURL != "http://127.0.0.1:8080/v1" || r.APIName != "local" {
		t.Fatalf("resolve local: %+v %v", r, err)
	}
	if r, _ := cfg.ResolveModel(context.Background(), "gpt", config.Env{Getenv: func(string) string { return "k" }}); r == nil || r.BaseURL != "https://api.openai.com/v1" {
		t.Errorf("gpt now at %+v", r)
	}
	// The alias already names an endpoint: the new one gets another name;
	// the wire format follows --api.
	if err := e.run("model", "add", "--alias", "ollama", "--api", "anthropic", "--base-url", "http://127.0.0.1:9999/v1", "--id", "x"); err != nil {
		t.Fatal(err)
	}
	if a := e.cfg(t).API["ollama-api"]; a.BaseURL != "http://127.0.0.1:9999/v1" || a.Type != "anthropic" {
		t.Errorf("api.ollama-api = %+v", a)
	}
}

func TestModelAddKeepsComments(t *testing.T) {
	src := "# hand-written\n[general]\nmax_turns = 5 # short\n\n[models.a]\napi = \"openai\"\nid = \"x\"\n"
	e := newEnv(t, map[string]string{"config.toml": src})
	if err := e.run("model", "add", "--alias", "b", "--api", "openai", "--id", "y"); err != nil {
		t.Fatal(err)
	}
	got := e.read(t, "config.toml")
	if !strings.HasPrefix(got, src) || !strings.HasSuffix(got, "[models.b]\napi = \"openai\"\nid = \"y\"\n") {
		t.Errorf("config.toml:\n%s", got)
	}
}

func TestModelAddRefusals(t *testing.T) {
	const existing = "[models.a]\napi = \"openai\"\nid = \"x\"\n[models.b]\napi = \"openai\"\nid = \"y\"\n"
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"duplicate", []string{"--alias", "a", "--api", "openai", "--id", "z"}, 2, `model alias "a" already exists (have: a, b)`},
		{"missing flags", []string{"--alias", "c"}, 2, "missing required flags: --api or --base-url; --id"},
		{"missing all", nil, 2, "missing required flags: --alias; --api or --base-url; --id"},
		{"unknown api", []string{"--alias", "c", "--api", "nowhere", "--id", "z"}, 2, `api "nowhere" is not defined`},
		{"bad type", []string{"--alias", "c", "--base-url", "http://h/v1", "--type", "gemini", "--id", "z"}, 2, "--type must be openai or anthropic"},
		{"bad url", []string{"--alias", "c", "--base-url", "h/v1", "--id", "z"}, 2, "--base-url must start with http"},
		{"negative", []string{"--alias", "c", "--api", "openai", "--id", "z", "--context-size", "-1"}, 2, "cannot be negative"},
		{"extra arg", []string{"c"}, 1, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, map[string]string{"config.toml": existing})
			err := e.run(append([]string{"model", "add"}, tt.args...)...)
			if err == nil || exitCode(err) != tt.code && tt.code != 1 || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err = %v (exit %d), want %d %q", err, exitCode(err), tt.code, tt.err)
			}
			if e.read(t, "config.toml") != existing {
				t.Error("config.toml changed")
			}
		})
	}
}

func TestModelAddInteractive(t *testing.T) {
	srv := fakeProvider(t, "openai", "sk-i")
	e := newEnv(t, map[string]string{"config.toml": "[models.old]\napi = \"openai\"\nid = \"x\"\n"}, "MY_KEY", "sk-i")
	e.f.IO.SetTTY(true, false, true)
	// alias (first a duplicate), endpoint name, base url, type, key env,
	// model number from the server's list, context size, default?
	e.in.WriteString("old\nlocal\nmine\n" + srv.URL + "/v1\n\nMY_KEY\n2\n8192\ny\n")
	if err := e.run("model", "add"); err != nil {
		t.Fatalf("%v\n%s", err, e.errOut.String())
	}
	wantContains(t, "prompts", e.errOut.String(), "? Alias", `model alias "old" already exists`, "? Endpoint", "? Base URL", "1) m-large", "2) m-small", "? Context size", "? Make it the default model")
	if e.out.Len() != 0 {
		t.Errorf("prompts on stdout: %q", e.out.String())
	}
	cfg := e.cfg(t)
	m := cfg.Models["local"]
	if m.API != "mine" || m.ID != "m-small" || m.ContextSize != 8192 || cfg.General.DefaultModel != "local" {
		t.Errorf("model %+v default %s", m, cfg.General.DefaultModel)
	}
	if a := cfg.API["mine"]; a.BaseURL != srv.URL+"/v1" || a.Type != "openai" || a.APIKeyEnv != "MY_KEY" {
		t.Errorf("api %+v", a)
	}
}

func TestModelAddInteractiveReasksBadAnswers(t *testing.T) {
	srv := fakeProvider(t, "openai", "sk-i")
	e := newEnv(t, nil, "MY_KEY", "sk-i")
	e.f.IO.SetTTY(true, false, true)
	// alias, endpoint name, a base url without scheme then the right one,
	// a wrong wire format then the default, key env, model, context size.
	e.in.WriteString("local\nmine\n127.0.0.1:1/v1\n" + srv.URL + "/v1\ngemini\n\nMY_KEY\n1\n\n")
	if err := e.run("model", "add"); err != nil {
		t.Fatalf("%v\n%s", err, e.errOut.String())
	}
	wantContains(t, "prompts", e.errOut.String(), `"127.0.0.1:1/v1": give the URL with http:// or https://`, `"gemini": answer openai or anthropic`, "1) m-large")
	if a := e.cfg(t).API["mine"]; a.BaseURL != srv.URL+"/v1" || a.Type != "openai" {
		t.Errorf("api %+v", a)
	}
}

func TestModelAddInteractiveSaysWhyNoModelList(t *testing.T) {
	e := newEnv(t, nil)
	e.f.IO.SetTTY(true, false, true)
	e.in.WriteString("local\nmine\nhttp://127.0.0.1:1/v1\n\n\nm1\n\n")
	if err := e.run("model", "add"); err != nil {
		t.Fatalf("%v\n%s", err, e.errOut.String())
	}
	wantContains(t, "prompts", e.errOut.String(), "could not list the server's models", "? Model id (as the server names it)")
}

func TestModelAddInteractiveInputEnds(t *testing.T) {
	e := newEnv(t, nil)
	e.f.IO.SetTTY(true, false, true)
	e.in.WriteString("x\n")
	err := e.run("model", "add")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "input ended") {
		t.Fatalf("err = %v", err)
	}
	if _, ok := e.cfg(t).Models["x"]; ok {
		t.Error("written after aborted input")
	}
}

func TestModelEdit(t *testing.T) {
	src := "# models\n[models.a]\napi = \"openai\"\nid = \"x\" # pinned\n[models.b]\napi = \"openai\"\nid = \"y\"\n"
	e := newEnv(t, map[string]string{"models.toml": src})
	if err := e.run("model", "edit", "a", "--id", "x2", "--context-size", "1000", "--price-out", "2", "--default"); err != nil {
		t.Fatal(err)
	}
	got := e.read(t, "models.toml")
	wantContains(t, "models.toml", got, "# models\n", `id = "x2" # pinned`, "context_size = 1000", "price_out = 2.0")
	cfg := e.cfg(t)
	if cfg.Models["a"].ID != "x2" || cfg.General.DefaultModel != "a" || cfg.Models["b"].ID != "y" {
		t.Errorf("%+v %s", cfg.Models, cfg.General.DefaultModel)
	}
	// --base-url on edit creates the endpoint the model now uses.
	if err := e.run("model", "edit", "b", "--api", "lan", "--base-url", "http://10.0.0.2:8080/v1"); err != nil {
		t.Fatal(err)
	}
	cfg = e.cfg(t)
	if cfg.Models["b"].API != "lan" || cfg.API["lan"].BaseURL != "http://10.0.0.2:8080/v1" {
		t.Errorf("b = %+v api = %+v", cfg.Models["b"], cfg.API)
	}

	tests := []struct {
		name string
		args []string
		err  string
	}{
		{"unknown alias", []string{"zz", "--id", "q"}, `unknown model alias "zz" (have: a, b)`},
		{"no alias, no tty", []string{"--id", "q"}, "missing alias (have: a, b)"},
		{"nothing to change", []string{"a"}, "nothing to change"},
		{"unknown api", []string{"a", "--api", "nowhere"}, `api "nowhere" is not defined`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := e.read(t, "models.toml")
			err := e.run(append([]string{"model", "edit"}, tt.args...)...)
			if exitCode(err) != 2 || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err = %v (exit %d), want %q", err, exitCode(err), tt.err)
			}
			if e.read(t, "models.toml") != before {
				t.Error("file changed")
			}
		})
	}
}

func TestModelEditInteractive(t *testing.T) {
	srv := fakeProvider(t, "openai", "")
	e := newEnv(t, map[string]string{"config.toml": "[api.l]\nbase_url = \"" + srv.URL + "/v1\"\n[models.a]\napi = \"l\"\nid = \"m-small\"\ncontext_size = 4000\n[models.b]\napi = \"l\"\nid = \"m-small\"\n"})
	e.f.IO.SetTTY(true, false, true)
	// pick alias 1 (a); keep endpoint; choose model 1 (m-large); keep
	// context size; max turns 7; keep prices; not default.
	e.in.WriteString("1\n\n1\n\n7\n\n\nn\n")
	if err := e.run("model", "edit"); err != nil {
		t.Fatalf("%v\n%s", err, e.errOut.String())
	}
	m := e.cfg(t).Models["a"]
	if m.ID != "m-large" || m.ContextSize != 4000 || m.MaxTurns != 7 || m.API != "l" {
		t.Errorf("a = %+v", m)
	}
	wantContains(t, "prompts", e.errOut.String(), "? Model to edit", "? Endpoint", "[l]", "? Context size in tokens [4000]", "✓ Updated model a")
}

func TestModelAddInteractiveCtrlC(t *testing.T) {
	e := newEnv(t, nil)
	r, w := io.Pipe() // stdin that never answers
	defer w.Close()
	e.f.IO.In = r
	e.f.IO.SetTTY(true, false, true)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	cmd := NewCmdModelAdd(e.f, nil)
	cmd.SetArgs([]string{})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("prompt ignored the cancellation")
	}
	if _, err := os.Stat(filepath.Join(e.dir, "config.toml")); !errors.Is(err, os.ErrNotExist) {
		t.Error("config written after Ctrl-C")
	}
}

// A refused flag of `model edit` points at edit's help, not add's.
func TestModelFlagRefusalNamesItsCommand(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": "[models.a]\napi = \"openai\"\nid = \"x\"\n"})
	for verb, args := range map[string][]string{
		"edit": {"a", "--context-size", "-4"},
		"add":  {"--alias", "c", "--api", "openai", "--id", "z", "--max-turns", "-1"},
	} {
		err := e.run(append([]string{"model", verb}, args...)...)
		var ce *cmdutil.Error
		if !errors.As(err, &ce) || ce.Code != cmdutil.ExitUsage || !strings.Contains(ce.Hint, "model "+verb+" --help`") {
			t.Errorf("%s: err = %v, hint %q", verb, err, func() string {
				if ce != nil {
					return ce.Hint
				}
				return ""
			}())
		}
	}
}
