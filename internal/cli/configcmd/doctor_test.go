package configcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
)

// fakeProvider answers GET /v1/models like OpenAI (Bearer) or Anthropic
// (x-api-key + anthropic-version) and rejects other keys.
func fakeProvider(t *testing.T, typ, key string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Method != http.MethodGet {
			http.NotFound(w, r)
			return
		}
		ok := r.Header.Get("Authorization") == "Bearer "+key
		if typ == "anthropic" {
			ok = r.Header.Get("x-api-key") == key && r.Header.Get("anthropic-version") != ""
		}
		if key == "" { // a local server without auth
			ok = true
		}
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"error":{"message":"bad key"}}`)
			return
		}
		fmt.Fprint(w, `{"data":[{"id":"m-small"},{"id":"m-large"}]}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func modelConfig(typ, base, id string) string {
	return fmt.Sprintf("[api.p]\ntype = %q\nbase_url = %q\napi_key_env = \"P_KEY\"\n[models.m]\napi = \"p\"\nid = %q\nprice_in = 1\nprice_out = 2\n", typ, base, id)
}

// doctor runs `config doctor` and returns the lines and the error.
func (e *testEnv) doctor(t *testing.T, args ...string) (string, error) {
	t.Helper()
	err := e.run(append([]string{"doctor"}, args...)...)
	if e.errOut.Len() != 0 {
		t.Errorf("doctor wrote to stderr: %s", e.errOut.String())
	}
	return e.out.String(), err
}

func TestDoctorAllGood(t *testing.T) {
	for _, typ := range []string{"openai", "anthropic"} {
		t.Run(typ, func(t *testing.T) {
			srv := fakeProvider(t, typ, "sk-canary-good")
			e := newEnv(t, map[string]string{"config.toml": modelConfig(typ, srv.URL+"/v1", "m-small")}, "P_KEY", "sk-canary-good")
			// An existing database is opened and checked.
			st, err := e.f.Store()
			if err != nil {
				t.Fatal(err)
			}
			_ = st
			out, err := e.doctor(t)
			if err != nil {
				t.Fatalf("err = %v\n%s", err, out)
			}
			wantContains(t, "doctor", out,
				"✓ config    1 file(s) parsed",
				`✓ model     m → m-small via api "p" (`+typ+", "+srv.URL+"/v1)",
				"✓ api key   present (from env P_KEY)",
				"✓ endpoint  "+srv.URL+"/v1 reachable (2 models listed",
				"✓ database  "+filepath.Join(e.dir, "asky.db")+" (quick_check ok)",
				"✓ search    duckduckgo (keyless default)")
			wantNot(t, "doctor", out, "canary", "✗", "!")
		})
	}
}

func TestDoctorFailures(t *testing.T) {
	good := fakeProvider(t, "openai", "right")
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	t.Cleanup(stall.Close)
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) }))
	t.Cleanup(broken.Close)
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("format") != "json" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"results":[{"url":"https://example.org/","title":"x","content":"y"}]}`))
	}))
	t.Cleanup(searx.Close)
	searxNoJSON := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusForbidden) }))
	t.Cleanup(searxNoJSON.Close)
	searxng := func(url string) map[string]string {
		return map[string]string{"config.toml": "[general]\nsearch_provider = \"searxng\"\nsearxng_url = \"" + url + "\"\n"}
	}
	noModels := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(noModels.Close)

	tests := []struct {
		name  string
		files map[string]string
		vars  []string
		want  []string
		fail  bool
	}{
		{"no config at all", nil, nil, []string{"✓ config    no config files", "✗ model     no model configured and none detected", "hint: add one with `asky config model add`", "- api key   no model", "✓ database", "does not exist yet"}, true},
		{"detected from env", nil, []string{"OPENAI_API_KEY", "sk-canary-env"}, []string{"✓ model     gpt-4o-mini (openai at https://api.openai.com/v1), detected", "✓ api key   present (from env OPENAI_API_KEY)", "✗ endpoint  https://api.openai.com/v1 unreachable: no such host"}, true},
		{"closed port", map[string]string{"config.toml": modelConfig("openai", closedURL+"/v1", "m-small")}, []string{"P_KEY", "k"}, []string{"✗ endpoint  " + closedURL + "/v1 unreachable: connection refused", "hint: is the server running"}, true},
		{"wrong key", map[string]string{"config.toml": modelConfig("openai", good.URL+"/v1", "m-small")}, []string{"P_KEY", "sk-canary-wrong"}, []string{"✗ endpoint  " + good.URL + "/v1 answered 401 Unauthorized", "hint: the key from env P_KEY was rejected"}, true},
		{"missing key env", map[string]string{"config.toml": modelConfig("openai", good.URL+"/v1", "m-small")}, nil, []string{"✓ model     m → m-small", "✗ api key   api \"p\": environment variable P_KEY is not set", "- endpoint  no API key"}, true},
		{"stalled server", map[string]string{"config.toml": modelConfig("openai", stall.URL+"/v1", "m-small")}, []string{"P_KEY", "k"}, []string{"✗ endpoint  " + stall.URL + "/v1 did not answer within 300ms"}, true},
		{"server error", map[string]string{"config.toml": modelConfig("openai", broken.URL+"/v1", "m-small")}, []string{"P_KEY", "k"}, []string{"✗ endpoint  " + broken.URL + "/v1 answered 502 Bad Gateway"}, true},
		{"no /models is a warning", map[string]string{"config.toml": modelConfig("openai", noModels.URL+"/v1", "m-small")}, []string{"P_KEY", "k"}, []string{"! endpoint  " + noModels.URL + "/v1 reachable, but GET /models answered 404"}, false},
		{"base_url without /v1 hints at it", map[string]string{"config.toml": modelConfig("openai", good.URL, "m-small")}, []string{"P_KEY", "right"}, []string{"! endpoint  " + good.URL + " reachable, but GET /models answered 404", `hint: OpenAI-compatible servers usually serve under /v1: try base_url = "` + good.URL + `/v1"`}, false},
		{"unknown model id", map[string]string{"config.toml": modelConfig("openai", good.URL+"/v1", "m-typo")}, []string{"P_KEY", "right"}, []string{"✓ endpoint", `! endpoint  model id "m-typo" is not in the server's list`}, false},
		{"unknown default alias", map[string]string{"config.toml": "[general]\ndefault_model = \"zz\"\n" + modelConfig("openai", good.URL+"/v1", "m")}, nil, []string{`✗ model     unknown model alias "zz" (from general.default_model); configured aliases: m`}, true},
		{"malformed config", map[string]string{"config.toml": "[general]\nmax_turns = \"x\"\n"}, nil, []string{"✗ config    ", "config.toml:2:13: general.max_turns: expected an integer, got a string", "hint: fix the file"}, true},
		{"a model without prices warns", map[string]string{"config.toml": strings.Replace(modelConfig("openai", good.URL+"/v1", "m-small"), "price_in = 1\nprice_out = 2\n", "", 1)}, []string{"P_KEY", "right"}, []string{"! prices    models.m have no price_in/price_out", "✓ endpoint"}, false},
		{"unknown key warns", map[string]string{"config.toml": "[general]\nmax_turn = 3\n" + modelConfig("openai", good.URL+"/v1", "m-small")}, []string{"P_KEY", "right"}, []string{`! config    `, `general.max_turn: unknown key (ignored; did you mean "general.max_turns"?)`, "✓ endpoint"}, false},
		{"tavily without key", map[string]string{"config.toml": "[general]\nsearch_provider = \"tavily\"\n"}, nil, []string{"✗ search    tavily selected but TAVILY_API_KEY is not set"}, true},
		{"tavily with key", map[string]string{"config.toml": "[general]\nsearch_provider = \"tavily\"\n" + modelConfig("openai", good.URL+"/v1", "m-small")}, []string{"TAVILY_API_KEY", "t", "P_KEY", "right"}, []string{"✓ search    tavily (https://api.tavily.com/search; key from env TAVILY_API_KEY)"}, false},
		{"unknown provider", map[string]string{"config.toml": "[general]\nsearch_provider = \"bing\"\n"}, nil, []string{`✗ config    `, `general.search_provider: "bing" is not one of duckduckgo`}, true},
		{"searxng answers", searxng(searx.URL), nil, []string{"✓ search    searxng at " + searx.URL + " answered ("}, true},
		{"searxng down", searxng(closedURL), nil, []string{"✗ search    searxng at " + closedURL + ": ", "connection refused", "hint: is SearXNG running there?"}, true},
		{"searxng without JSON", searxng(searxNoJSON.URL), nil, []string{"✗ search    searxng at " + searxNoJSON.URL + ": HTTP 403: the JSON API is disabled"}, true},
		{"searxng stalled", searxng(stall.URL), nil, []string{"✗ search    searxng at " + stall.URL + ": did not answer within 300ms"}, true},
		{"not a database", map[string]string{"asky.db": "this is not sqlite, just text that is long enough to have a header........................................"}, nil, []string{"✗ database  ", "asky.db", "move it aside"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.files, tt.vars...)
			cmd := NewCmdDoctor(e.f, func(ctx context.Context, o *DoctorOptions) error {
				o.Timeout = 300 * time.Millisecond
				return doctorRun(ctx, o)
			})
			cmd.SetArgs([]string{})
			cmd.SetOut(e.errOut)
			cmd.SetErr(e.errOut)
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			start := time.Now()
			err := cmd.Execute()
			out := e.out.String()
			if time.Since(start) > 4*time.Second {
				t.Errorf("doctor took %s", time.Since(start))
			}
			if tt.fail != errors.Is(err, cmdutil.ErrSilent) || !tt.fail && err != nil {
				t.Errorf("err = %v, want fail=%v\n%s", err, tt.fail, out)
			}
			wantContains(t, "doctor", out, tt.want...)
			wantNot(t, "doctor", out+e.errOut.String(), "canary")
			if tt.name == "not a database" {
				if b, _ := os.ReadFile(filepath.Join(e.dir, "asky.db")); !strings.HasPrefix(string(b), "this is not sqlite") {
					t.Error("doctor modified a foreign file")
				}
			}
		})
	}
}

func TestDoctorJSON(t *testing.T) {
	srv := fakeProvider(t, "openai", "k")
	e := newEnv(t, map[string]string{"config.toml": modelConfig("openai", srv.URL+"/v1", "m-small") + "[general]\nsearch_provider = \"serper\"\n[research.deep]\nprovider = \"off\"\n"}, "P_KEY", "k")
	out, err := e.doctor(t, "--json")
	if !errors.Is(err, cmdutil.ErrSilent) {
		t.Fatalf("err = %v", err)
	}
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.OK || len(rep.Checks) != 7 {
		t.Fatalf("report %+v", rep)
	}
	if deep := rep.Checks[len(rep.Checks)-1]; deep.Name != "deep" || deep.Status != statusSkip {
		t.Errorf("deep check %+v", deep)
	}
	last := rep.Checks[len(rep.Checks)-2]
	if last.Name != "search" || last.Status != statusFail || !strings.Contains(last.Hint, "SERPER_API_KEY") {
		t.Errorf("search check %+v", last)
	}
	if rep.Checks[3].Name != "endpoint" || rep.Checks[3].Status != statusOK {
		t.Errorf("endpoint %+v", rep.Checks[3])
	}
}

func TestDoctorDoesNotCreateDatabase(t *testing.T) {
	e := newEnv(t, nil)
	_, _ = e.doctor(t)
	if _, err := os.Stat(filepath.Join(e.dir, "asky.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("doctor created the database: %v", err)
	}
	if e.requests != 0 {
		t.Errorf("doctor made %d requests with no model", e.requests)
	}
}
