package compose

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/fetch"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
)

// recModel records requests; summary requests (system prompt asks to
// summarize) get a fixed summary, the main call an answer.
type recModel struct {
	mu   sync.Mutex
	main []llm.Request
	sums int
}

func (m *recModel) Chat(_ context.Context, req llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if strings.Contains(req.Messages[0].Content, "ummariz") && len(req.Messages) == 2 && req.Messages[1].Role == llm.RoleUser &&
		!strings.Contains(req.Messages[1].Content, "Preloaded sources") {
		m.sums++
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "yield must be checked (summary)"}}, nil
	}
	m.main = append(m.main, req)
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "answer"}}, nil
}

func seedSite(t *testing.T) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/post", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Yield rules</title></head><body><article><h1>Yield rules</h1>`+
			strings.Repeat("<p>An iterator must stop as soon as yield returns false, or the loop's break panics. Check it every time.</p>", 12)+
			`</article></body></html>`)
	})
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: mux}}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func webOpts(t *testing.T) (*composer, *config.Config, *store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := config.Defaults()
	cfg.Fetch.AllowHosts = []string{"127.0.0.2"}
	cfg.Fetch.Timeout = 2
	core := &Core{Getenv: func(string) string { return "" }, HTTPClient: func() *http.Client { return http.DefaultClient },
		Store: func() (*store.Store, error) { return st, nil }, Now: time.Now}
	return &composer{Core: core, cfg: cfg, q: &Request{}}, cfg, st
}

func runSeeded(t *testing.T, x *composer, _ *config.Config, query string, ctxSize int) (*turn.Result, *recModel) {
	t.Helper()
	m := &recModel{}
	req := &turn.Request{Query: query, Client: m, Model: &config.ResolvedModel{Alias: "m", ID: "m", ContextSize: ctxSize}}
	reg, err := buildTools(context.Background(), x, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Tools = reg
	res, err := (&turn.Engine{}).Run(context.Background(), *req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.main) != 1 {
		t.Fatalf("%d main calls", len(m.main))
	}
	return res, m
}

func toolNames(specs []llm.ToolSpec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

func TestSeedURLDirectAnswerMode(t *testing.T) {
	site := seedSite(t)
	opts, cfg, st := webOpts(t)
	u := site.URL + "/post"
	res, m := runSeeded(t, opts, cfg, "summarize "+u+" please", 32000)
	req := m.main[0]
	user := req.Messages[len(req.Messages)-1].Content
	for _, want := range []string{"status: full_content", "title: Yield rules", "must stop as soon as yield returns false", "Answer directly from it"} {
		if !strings.Contains(user, want) {
			t.Errorf("user message lacks %q:\n%.600s", want, user)
		}
	}
	for _, n := range toolNames(req.Tools) {
		if n == tools.WebSearchName || n == tools.GetURLContentName || n == tools.GetURLDetailsName {
			t.Errorf("web tool %s offered in direct-answer mode", n)
		}
	}
	if len(res.Sources) != 1 || res.Sources[0].URL != u {
		t.Errorf("sources %+v", res.Sources)
	}
	if len(res.Notices) != 1 || !strings.Contains(res.Notices[0], "web tools are off") {
		t.Errorf("notices %q", res.Notices)
	}
	key, _ := fetch.Normalize(u)
	if p, err := st.GetWebPage(context.Background(), key, time.Hour); err != nil || p == nil || p.Title != "Yield rules" {
		t.Errorf("page not cached: %+v %v", p, err)
	}
}

func TestSeedURLOverBudgetIsSummarized(t *testing.T) {
	site := seedSite(t)
	opts, cfg, _ := webOpts(t)
	res, m := runSeeded(t, opts, cfg, "what does "+site.URL+"/post say?", 150) // budget 480 chars
	user := m.main[0].Messages[len(m.main[0].Messages)-1].Content
	if !strings.Contains(user, "status: summarized_due_budget") || !strings.Contains(user, "yield must be checked (summary)") {
		t.Errorf("user message:\n%.800s", user)
	}
	if m.sums != 1 {
		t.Errorf("%d summary calls", m.sums)
	}
	names := strings.Join(toolNames(m.main[0].Tools), ",")
	if !strings.Contains(names, tools.WebSearchName) || !strings.Contains(names, tools.GetURLContentName) {
		t.Errorf("web tools removed although the seed was summarized: %s", names)
	}
	if len(res.Notices) != 0 {
		t.Errorf("notices %q", res.Notices)
	}
}

func TestSeedURLFetchErrorKeepsTools(t *testing.T) {
	opts, cfg, _ := webOpts(t)
	_, m := runSeeded(t, opts, cfg, "read http://127.0.0.1:1/secret", 32000)
	user := m.main[0].Messages[len(m.main[0].Messages)-1].Content
	if !strings.Contains(user, "status: fetch_error") || !strings.Contains(user, "blocked") {
		t.Errorf("user message:\n%s", user)
	}
	if len(m.main[0].Tools) == 0 {
		t.Error("tools removed after a fetch error")
	}
}

func TestNoSeedPreloadInResearchMode(t *testing.T) {
	opts, _, _ := webOpts(t)
	opts.q.ResearchSet = true
	req := &turn.Request{Query: "read example.com/x"}
	if _, err := buildTools(context.Background(), opts, req); err != nil {
		t.Fatal(err)
	}
	before := len(req.Preloaders)
	opts.q.ResearchSet = false
	req2 := &turn.Request{Query: "read example.com/x"}
	if _, err := buildTools(context.Background(), opts, req2); err != nil {
		t.Fatal(err)
	}
	if len(req2.Preloaders) != before+1 {
		t.Fatalf("seed preloader added in research mode (%d preloaders in research mode, %d in standard mode)", before, len(req2.Preloaders))
	}
}

func TestBadFetchConfigIsAnError(t *testing.T) {
	opts, cfg, _ := webOpts(t)
	cfg.Fetch.AllowHosts = []string{"http://nope/"}
	if _, err := buildTools(context.Background(), opts, &turn.Request{}); err == nil || !strings.Contains(err.Error(), "allow_hosts") {
		t.Fatalf("err %v", err)
	}
}
