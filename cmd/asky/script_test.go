package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/askygo/asky/internal/cli"
	"github.com/askygo/asky/internal/llm/llmtest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"asky": func() { os.Exit(cli.Main()) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script through the
// real command tree (the test binary re-executes itself as `asky`), against
// a fake LLM server started per script.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup:               setupScript,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"fakellm":     cmdFakeLLM,
			"llm-enqueue": cmdEnqueue,
			"llm-request": cmdRequest,
		},
	})
}

type scriptKey struct{}

func setupScript(env *testscript.Env) error {
	srv := llmtest.New()
	env.Defer(srv.Close)
	env.Values[scriptKey{}] = srv
	home := filepath.Join(env.WorkDir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	// Isolate completely: no real keys, no XDG dirs, no local servers.
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "ASKY_MODEL", "NO_COLOR"} {
		env.Setenv(k, "")
	}
	env.Setenv("ASKY_HOME", home)
	env.Setenv("HOME", home)
	env.Setenv("FAKE_LLM_URL", srv.URL())
	env.Setenv("ASKY_NO_DETECT", "1")
	return nil
}

func server(ts *testscript.TestScript) *llmtest.Server {
	return ts.Value(scriptKey{}).(*llmtest.Server)
}

// cmdFakeLLM writes a config.toml pointing alias "fake" (openai) and
// "claude" (anthropic) at the fake server: `fakellm [default-alias]`.
func cmdFakeLLM(ts *testscript.TestScript, neg bool, args []string) {
	def := "fake"
	if len(args) > 0 {
		def = args[0]
	}
	cfg := fmt.Sprintf(`[general]
default_model = %q

[api.fake]
base_url = %q
api_key_env = "FAKE_KEY"

[api.anth]
type = "anthropic"
base_url = %q
api_key_env = "FAKE_KEY"

[models.fake]
api = "fake"
id = "fake-model"
context_size = 32000

[models.claude]
api = "anth"
id = "claude-fake"
context_size = 200000
`, def, ts.Getenv("FAKE_LLM_URL"), ts.Getenv("FAKE_LLM_URL"))
	ts.Check(os.WriteFile(filepath.Join(ts.Getenv("ASKY_HOME"), "config.toml"), []byte(cfg), 0o600))
	ts.Setenv("FAKE_KEY", "sk-fake-canary-0123456789")
}

// cmdEnqueue queues scripted responses from a JSON file: `llm-enqueue f.json`.
func cmdEnqueue(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: llm-enqueue file.json")
	}
	ts.Check(server(ts).EnqueueFile(ts.MkAbs(args[0])))
}

// cmdRequest prints part of a recorded request to stdout for assertions:
// `llm-request count`, `llm-request N user|system|tools|model|path|messages`
// (N is 1-based; -1 is the last request).
func cmdRequest(ts *testscript.TestScript, neg bool, args []string) {
	reqs := server(ts).Requests()
	if len(args) == 1 && args[0] == "count" {
		fmt.Fprintln(ts.Stdout(), len(reqs))
		return
	}
	if len(args) != 2 {
		ts.Fatalf("usage: llm-request count | llm-request N user|system|tools|model|path|messages")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	if n < 0 {
		n = len(reqs) + n + 1
	}
	if n < 1 || n > len(reqs) {
		ts.Fatalf("request %s of %d", args[0], len(reqs))
	}
	r := reqs[n-1]
	switch args[1] {
	case "user":
		fmt.Fprintln(ts.Stdout(), r.LastUser())
	case "system":
		fmt.Fprintln(ts.Stdout(), r.System())
	case "tools":
		fmt.Fprintln(ts.Stdout(), strings.Join(r.ToolNames(), "\n"))
	case "model":
		fmt.Fprintln(ts.Stdout(), r.Model())
	case "path":
		fmt.Fprintln(ts.Stdout(), r.Path)
	case "messages":
		for _, m := range r.Messages() {
			fmt.Fprintf(ts.Stdout(), "%v: %s\n", m["role"], llmtest.Text(m["content"]))
		}
	default:
		ts.Fatalf("unknown field %q", args[1])
	}
}
