package main

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/askygo/asky/internal/cli"
	"github.com/askygo/asky/internal/daemon"
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
			"fakellm":       cmdFakeLLM,
			"llm-enqueue":   cmdEnqueue,
			"llm-request":   cmdRequest,
			"daemon-http":   cmdDaemonHTTP,
			"mailsink":      cmdMailSink,
			"httpsink":      cmdHTTPSink,
			"sqlite-exec":   cmdSQLiteExec,
			"llm-wait":      cmdLLMWait,
			"prosody-start": cmdProsody,
			"xmpp-ask":      cmdXMPPAsk,
			"xmpp-command":  cmdXMPPCommand,
		},
		Condition: prosodyCondition,
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
	// A daemon a script started must not outlive it, whatever failed.
	env.Defer(func() { killDaemon(filepath.Join(home, "daemon.pid")) })
	env.Setenv("HOME", home)
	env.Setenv("FAKE_LLM_URL", srv.URL())
	env.Setenv("ASKY_NO_DETECT", "1")
	site := newFakeSite()
	env.Defer(site.Close)
	env.Setenv("FAKE_SITE_URL", site.URL)
	return nil
}

// newFakeSite serves a SearXNG-compatible search endpoint and two article
// pages, so scripts can drive the web tools end to end on loopback.
func newFakeSite() *httptest.Server {
	mux := http.NewServeMux()
	var srv *httptest.Server
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Query().Get("q"), "providerdown") {
			http.Error(w, "search backend down", http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"query":%q,"results":[
			{"url":"%s/go126","title":"Go 1.26 Release Notes","content":"Go 1.26 brings green tea GC by default.","engine":"fake"},
			{"url":"%s/other","title":"Other page","content":"Unrelated.","engine":"fake"}]}`,
			r.URL.Query().Get("q"), srv.URL, srv.URL)
	})
	mux.HandleFunc("/go126", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Go 1.26 Release Notes</title></head><body><article>
			<h1>Go 1.26 Release Notes</h1>
			<p>The Green Tea garbage collector, previously experimental, is now enabled by default in Go 1.26.
			It improves the performance of programs that allocate many small objects by scanning memory in spans.</p>
			<h2>Language changes</h2>
			<p>The built-in new function now accepts an expression as its operand, so new(42) allocates an int.</p>
			</article></body></html>`)
	})
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Other page</title></head><body><article>
			<h1>Other page</h1>
			<p>Tomatoes grow best in full sun with regular watering. Prune the side shoots every week and tie the main stem
			to a stake as it grows. Harvest when the fruit is evenly red and slightly soft to the touch.</p>
			<p>Basil likes the same conditions and keeps aphids away, so plant it between the rows. Mulch keeps the soil
			moist during hot weeks and stops weeds from taking over the bed.</p>
			</article></body></html>`)
	})
	// /long/N is a long article (about 9000 chars) with sentences unique
	// to N, for context-budget tests.
	mux.HandleFunc("/long/{n}", func(w http.ResponseWriter, r *http.Request) {
		n := r.PathValue("n")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Long page %s</title></head><body><article><h1>Long page %s</h1>`, n, n)
		for i := 0; i < 60; i++ {
			fmt.Fprintf(w, "<p>Paragraph %d of long page %s: marker-%s-%d explains one more detail of the subject at length, with enough words to matter.</p>\n", i, n, n, i)
		}
		fmt.Fprint(w, `</article></body></html>`)
	})
	srv = httptest.NewServer(mux)
	return srv
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
search_provider = "searxng"
searxng_url = "`+ts.Getenv("FAKE_SITE_URL")+`"

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

[models.small]
api = "fake"
id = "small-model"
context_size = 6000

[models.claude]
api = "anth"
id = "claude-fake"
context_size = 200000

[fetch]
allow_hosts = ["127.0.0.1"]
`, def, ts.Getenv("FAKE_LLM_URL"), ts.Getenv("FAKE_LLM_URL"))
	ts.Check(os.WriteFile(filepath.Join(ts.Getenv("ASKY_HOME"), "config.toml"), []byte(cfg), 0o600))
	ts.Setenv("FAKE_KEY", "sk-fake-canary-0123456789")
}

// cmdEnqueue queues scripted responses from a JSON file, with $VARS of
// the script environment expanded: `llm-enqueue f.json`.
func cmdEnqueue(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: llm-enqueue file.json")
	}
	raw := os.Expand(ts.ReadFile(args[0]), ts.Getenv)
	rs, err := llmtest.ParseScript([]byte(raw))
	ts.Check(err)
	server(ts).Enqueue(rs...)
}

// cmdRequest prints part of a recorded request to stdout for assertions:
// `llm-request count`, `llm-request N user|system|tools|toolresults|model|path|messages`
// (N is 1-based; -1 is the last request).
func cmdRequest(ts *testscript.TestScript, neg bool, args []string) {
	reqs := server(ts).Requests()
	if len(args) == 1 && args[0] == "count" {
		fmt.Fprintln(ts.Stdout(), len(reqs))
		return
	}
	if len(args) != 2 {
		ts.Fatalf("usage: llm-request count | llm-request N user|system|tools|toolresults|model|path|messages")
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
	case "toolresults":
		fmt.Fprintln(ts.Stdout(), strings.Join(r.ToolResults(), "\n"))
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

// killDaemon kills a daemon still holding the lock at path.
func killDaemon(path string) {
	if info, running, _ := daemon.Status(path); running && info.PID > 0 {
		if p, err := os.FindProcess(info.PID); err == nil {
			_ = p.Kill()
		}
	}
}

// cmdDaemonHTTP calls the running daemon's API at the URL its lock file
// records and prints the body: `daemon-http METHOD PATH [body.json]`.
// A status other than 200 fails (or, negated, is required).
func cmdDaemonHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: daemon-http METHOD PATH [body.json]")
	}
	info, running, err := daemon.Status(filepath.Join(ts.Getenv("ASKY_HOME"), "daemon.pid"))
	ts.Check(err)
	if !running {
		ts.Fatalf("no daemon is running")
	}
	var body io.Reader
	if len(args) == 3 {
		body = strings.NewReader(ts.ReadFile(args[2]))
	}
	req, err := http.NewRequest(args[0], info.URL+args[1], body)
	ts.Check(err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if tok := ts.Getenv("ASKY_DAEMON_TOKEN"); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	ts.Check(err)
	fmt.Fprint(ts.Stdout(), string(b))
	if (resp.StatusCode != http.StatusOK) != neg {
		ts.Fatalf("%s %s: %d %s", args[0], args[1], resp.StatusCode, b)
	}
}

// cmdSQLiteExec runs the SQL of a file on $ASKY_HOME/asky.db, to damage a
// database the way a user or a crash might: `sqlite-exec file.sql`.
func cmdSQLiteExec(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: sqlite-exec file.sql")
	}
	db, err := sql.Open("sqlite", filepath.Join(ts.Getenv("ASKY_HOME"), "asky.db"))
	ts.Check(err)
	defer db.Close()
	_, err = db.Exec(ts.ReadFile(args[0]))
	ts.Check(err)
}

// cmdLLMWait waits (up to 10 s) until the fake LLM has received N
// requests, so a script can act while a turn is in flight: `llm-wait N`.
func cmdLLMWait(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: llm-wait N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	deadline := time.Now().Add(10 * time.Second)
	for len(server(ts).Requests()) < n {
		if time.Now().After(deadline) {
			ts.Fatalf("the fake LLM got %d requests, want %d", len(server(ts).Requests()), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
