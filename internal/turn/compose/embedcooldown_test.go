package compose

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askygo/asky/internal/shortlist"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn"
)

// embeddingsServer is an OpenAI-compatible /embeddings endpoint that
// answers 503 while down is set, and counts its requests.
func embeddingsServer(t *testing.T, down *atomic.Bool, requests *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if down.Load() {
			http.Error(w, `{"error":{"message":"upstream unavailable"}}`, http.StatusServiceUnavailable)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Data []item `json:"data"`
		}{}
		for i, in := range req.Input {
			v := make([]float32, 8)
			for _, w := range strings.Fields(strings.ToLower(in)) {
				v[len(w)%8]++
			}
			v[0] += 0.1
			out.Data = append(out.Data, item{Index: i, Embedding: v})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// downProviderHome is a shortlist home whose embedding provider is the
// fake at emb (3 s shortlist budget, so a failing turn stays short).
func downProviderHome(t *testing.T, down *atomic.Bool, requests *atomic.Int32) (home string, emb *httptest.Server) {
	emb = embeddingsServer(t, down, requests)
	return shortlistHome(t, shortlistSite(t), fmt.Sprintf(`budget_seconds = 3
[research.embedding]
provider = "openai"
model = "text-embedding-3-small"
base_url = %q
`, emb.URL+"/v1")), emb
}

// A provider that is down costs the turn its retries once; the turns
// within the cooldown make no request to it and score with the builtin at
// once, saying so in -v; after the cooldown it is asked again, and its
// success clears the marker. The CLI core (no EmbedderCooldown) keeps the
// mark in a file in the cache dir, since every turn is a new process.
func TestShortlistRemembersDownProviderBetweenTurns(t *testing.T) {
	var down atomic.Bool
	var requests atomic.Int32
	down.Store(true)
	home, emb := downProviderHome(t, &down, &requests)
	clock := time.Now()
	ctx := context.Background()
	// Each turn is a new core over the same home, like a new CLI process.
	run := func() (debug string, took time.Duration) {
		core, _ := testCore(t, home)
		core.Now = func() time.Time { return clock }
		fixedModel(core, &scriptedClient{}, 32000)
		var d []string
		start := time.Now()
		if _, err := core.Run(ctx, Request{Question: "how does the Go garbage collector work?", Shortlist: "on"}, func(ev turn.Event) {
			if ev.Kind == turn.EventDebug {
				d = append(d, ev.Text)
			}
		}); err != nil {
			t.Fatal(err)
		}
		return strings.Join(d, "\n"), time.Since(start)
	}
	marker := filepath.Join(home, "cache", shortlist.CooldownFile)

	debug, slow := run()
	if requests.Load() == 0 || !strings.Contains(debug, "failed embed: ") {
		t.Fatalf("the provider was not tried (%d requests):\n%s", requests.Load(), debug)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("no marker after the failure: %v\n%s", err, debug)
	}

	before := requests.Load()
	clock = clock.Add(30 * time.Second)
	debug, fast := run()
	if n := requests.Load() - before; n != 0 {
		t.Fatalf("%d requests to the provider within its cooldown", n)
	}
	until := clock.Add(90 * time.Second).Format("15:04:05")
	want := fmt.Sprintf(`skipped embed: openai embeddings "text-embedding-3-small" at %s/v1 not asked until %s (in 1m30s): it failed 30s ago: no answer within `, emb.URL, until)
	line := debug[max(0, strings.Index(debug, "skipped embed: ")):]
	line, _, _ = strings.Cut(line, "\n")
	if !strings.HasPrefix(line, want) || !strings.HasSuffix(line, "s, retrying openai embeddings at "+emb.URL+"/v1: server error (HTTP 503): upstream unavailable (scored with the builtin embedder instead)") {
		t.Fatalf("-v does not say why the builtin scored:\n%s\nwant: %s…", debug, want)
	}
	t.Logf("turn with the provider down: %s; within the cooldown: %s", slow.Round(time.Millisecond), fast.Round(time.Millisecond))
	if fast > slow/2 {
		t.Errorf("the turn in the cooldown took %s, the one that paid the retries %s", fast, slow)
	}

	// After the cooldown the provider is asked again; it is back up, so
	// it scores and the marker goes.
	down.Store(false)
	clock = clock.Add(2 * time.Minute)
	before = requests.Load()
	debug, _ = run()
	if requests.Load() == before || strings.Contains(debug, "embed: ") {
		t.Fatalf("the provider was not used again after the cooldown (%d requests):\n%s", requests.Load()-before, debug)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the success left the marker: %v", err)
	}
}

// The daemon keeps the mark in memory for its process: the second
// conversation's turn does not ask the provider, and no file is written.
func TestDaemonRemembersDownProviderInMemory(t *testing.T) {
	var down atomic.Bool
	var requests atomic.Int32
	down.Store(true)
	home, _ := downProviderHome(t, &down, &requests)
	core, _ := testCore(t, home)
	core.EmbedderCooldown = &shortlist.Cooldown{}
	ctx := context.Background()
	st, _ := core.Store()
	for _, name := range []string{"xmpp:alice", "xmpp:bob"} {
		if err := st.CreateSession(ctx, &store.Session{Name: name, ShortlistOverride: "on"}); err != nil {
			t.Fatal(err)
		}
	}
	run := func(session string) string {
		fixedModel(core, &scriptedClient{}, 32000)
		var d []string
		if _, err := core.Run(ctx, Request{SessionName: session, Question: "how does the Go garbage collector work?", Remote: true}, func(ev turn.Event) {
			if ev.Kind == turn.EventDebug {
				d = append(d, ev.Text)
			}
		}); err != nil {
			t.Fatal(err)
		}
		return strings.Join(d, "\n")
	}
	run("xmpp:alice")
	before := requests.Load()
	if before == 0 {
		t.Fatal("the provider was not tried")
	}
	if debug := run("xmpp:bob"); requests.Load() != before || !strings.Contains(debug, "skipped embed: ") {
		t.Fatalf("%d requests in the cooldown:\n%s", requests.Load()-before, debug)
	}
	if _, err := os.Stat(filepath.Join(home, "cache", shortlist.CooldownFile)); !os.IsNotExist(err) {
		t.Fatalf("the daemon wrote the CLI's marker: %v", err)
	}
}
