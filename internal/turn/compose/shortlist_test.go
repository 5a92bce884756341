package compose

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn"
)

// shortlistSite serves a SearXNG search with one relevant and one
// unrelated page.
func shortlistSite(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	var srv *httptest.Server
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"results":[{"url":"%s/tomatoes","title":"Tomatoes"},{"url":"%s/gc","title":"Go GC"}]}`, srv.URL, srv.URL)
	})
	page := func(title, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><head><title>%s</title></head><body><article><h1>%s</h1><p>%s</p></article></body></html>", title, title, strings.Repeat(body+" ", 6))
		}
	}
	mux.HandleFunc("/gc", page("Go GC", "The Go garbage collector in Go 1.26 scans memory in spans and is enabled by default."))
	mux.HandleFunc("/tomatoes", page("Tomatoes", "Tomatoes need full sun, regular watering and a stake for the main stem."))
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// shortlistHome is an asky home whose config searches site and reads its
// pages, plus extra TOML.
func shortlistHome(t *testing.T, site *httptest.Server, extra string) string {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(fmt.Sprintf(`[general]
search_provider = "searxng"
searxng_url = %q
[fetch]
allow_hosts = ["127.0.0.1"]
[research.source_shortlist]
min_content_chars = 100
`, site.URL)+extra), 0o600)
	return home
}

// A daemon conversation runs the same preload as the CLI: the session's
// shortlist override turns the stage on for a remote question.
func TestRemoteSessionShortlistOverride(t *testing.T) {
	core, _ := testCore(t, shortlistHome(t, shortlistSite(t), ""))
	client := &scriptedClient{}
	fixedModel(core, client, 32000)
	ctx := context.Background()
	st, _ := core.Store()
	s := &store.Session{Name: "xmpp:alice", ShortlistOverride: "on"}
	if err := st.CreateSession(ctx, s); err != nil {
		t.Fatal(err)
	}
	var debug []string
	_, err := core.Run(ctx, Request{SessionName: "xmpp:alice", Question: "how does the Go garbage collector work?", Remote: true}, func(ev turn.Event) {
		if ev.Kind == turn.EventDebug {
			debug = append(debug, ev.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	user := client.requests[0].Messages[len(client.requests[0].Messages)-1].Content
	gc, tom := strings.Index(user, "/gc"), strings.Index(user, "/tomatoes")
	if gc < 0 || tom < 0 || gc > tom {
		t.Fatalf("relevant page not first:\n%s", user)
	}
	if d := strings.Join(debug, "\n"); !strings.Contains(d, "shortlist on: --shortlist on (request or session)") || !strings.Contains(d, "C:2 F:2 S:2 W:2") {
		t.Errorf("debug:\n%s", d)
	}
	// Without the override a plain question is not shortlisted.
	client2 := &scriptedClient{}
	fixedModel(core, client2, 32000)
	if _, err := core.Run(ctx, Request{SessionName: "xmpp:bob", Question: "how does the Go garbage collector work?", Remote: true}, nil); err != nil {
		t.Fatal(err)
	}
	if user := client2.requests[0].Messages[len(client2.requests[0].Messages)-1].Content; strings.Contains(user, "Source shortlist") {
		t.Errorf("shortlisted without an override:\n%s", user)
	}
}

// The shortlist scores with the configured corpus embedder; a provider
// that fails falls back to the builtin with a -v note, and a turn that
// does not shortlist never calls the provider.
func TestShortlistEmbedderFallsBackToBuiltin(t *testing.T) {
	site := shortlistSite(t)
	var embeds atomic.Int32
	emb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		embeds.Add(1)
		http.Error(w, `{"error":{"message":"model not loaded"}}`, http.StatusBadRequest)
	}))
	t.Cleanup(emb.Close)
	core, _ := testCore(t, shortlistHome(t, site, fmt.Sprintf(`[research.embedding]
provider = "openai"
model = "nomic-embed-text"
base_url = %q
`, emb.URL)))
	ctx := context.Background()
	st, _ := core.Store()
	if err := st.CreateSession(ctx, &store.Session{Name: "xmpp:alice", ShortlistOverride: "on"}); err != nil {
		t.Fatal(err)
	}
	run := func(session string) (user, debug string) {
		client := &scriptedClient{}
		fixedModel(core, client, 32000)
		var d []string
		if _, err := core.Run(ctx, Request{SessionName: session, Question: "how does the Go garbage collector work?", Remote: true}, func(ev turn.Event) {
			if ev.Kind == turn.EventDebug {
				d = append(d, ev.Text)
			}
		}); err != nil {
			t.Fatal(err)
		}
		return client.requests[0].Messages[len(client.requests[0].Messages)-1].Content, strings.Join(d, "\n")
	}
	// Shortlist off: the provider is never asked.
	if _, debug := run("xmpp:bob"); embeds.Load() != 0 || strings.Contains(debug, "C:") {
		t.Fatalf("%d embedding requests without a shortlist:\n%s", embeds.Load(), debug)
	}
	user, debug := run("xmpp:alice")
	if embeds.Load() == 0 {
		t.Fatal("the configured embedder was not used")
	}
	if !strings.Contains(debug, "failed embed: ") || !strings.Contains(debug, "model not loaded") || !strings.Contains(debug, "(scored with the builtin embedder instead)") {
		t.Fatalf("no fallback note in -v:\n%s", debug)
	}
	if !strings.Contains(user, "semantic similarity") || strings.Index(user, "/gc") > strings.Index(user, "/tomatoes") {
		t.Fatalf("not ranked semantically, relevant page first:\n%s", user)
	}
}
