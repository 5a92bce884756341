package shortlist

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/research"
)

func failureFor(res *Result, urlSuffix string) string {
	for _, f := range res.Failures {
		if strings.HasSuffix(f.URL, urlSuffix) {
			return f.Reason
		}
	}
	return ""
}

func TestRunRanksRelevantPageFirst(t *testing.T) {
	for _, tc := range []struct {
		name string
		emb  Embedder
	}{{"lexical", nil}, {"embedder", bagEmbedder{}}, {"builtin hash-v1", research.HashV1{}}, {"embedder down", errEmbedder{}}} {
		t.Run(tc.name, func(t *testing.T) {
			site := fakeSite(t, nil)
			fs := &fakeSearch{hits: hits(site.URL, "/pasta", "/tag/raft", "/raft-leader-election", "/tiny", "/binary", "/loop", "/broken")}
			s := &Shortlister{Search: fs, Fetch: guardedFetcher(t), Embedder: tc.emb, Options: Defaults()}
			var events []Event
			res, err := s.Run(context.Background(), Input{Prompt: "How does Raft leader election behave during a network partition?"}, func(e Event) { events = append(events, e) })
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Candidates) < 2 {
				t.Fatalf("candidates = %+v, failures %+v", res.Candidates, res.Failures)
			}
			if got := res.Candidates[0].URL; !strings.HasSuffix(got, "/raft-leader-election") {
				t.Fatalf("top = %s; ranking %+v", got, res.Candidates)
			}
			rank := map[string]int{}
			for i, c := range res.Candidates {
				rank[c.URL[len(site.URL):]] = i
			}
			if rank["/tag/raft"] < rank["/raft-leader-election"] || rank["/pasta"] <= rank["/raft-leader-election"] {
				t.Errorf("ranking = %v", rank)
			}
			if res.Stats.Collected != 7 || res.Stats.Fetched != 4 || res.Stats.Scored != 3 || res.Stats.Kept != 3 {
				t.Errorf("stats = %s (%+v)", res.Stats.Banner(), res.Stats)
			}
			for path, want := range map[string]string{"/binary": "unsupported", "/loop": "redirect", "/broken": "500", "/tiny": "too little text"} {
				if r := failureFor(res, path); !strings.Contains(strings.ToLower(r), want) {
					t.Errorf("failure for %s = %q, want %q", path, r, want)
				}
			}
			if tc.emb != nil && tc.name == "embedder down" && !strings.Contains(res.Failures[len(res.Failures)-1].Reason, "embedder down") {
				t.Errorf("embed failure not named: %+v", res.Failures)
			}
			if len(events) != 3 || events[0].Stage != "collect" || events[2].Stage != "score" {
				t.Errorf("events = %+v", events)
			}
			block := res.ContextBlock()
			if !strings.Contains(block, "1. How Raft leader election works (score=") || !strings.Contains(block, "Why: search result for") {
				t.Errorf("context block:\n%s", block)
			}
		})
	}
}

func TestRunProviderDown(t *testing.T) {
	s := &Shortlister{Search: &fakeSearch{err: errors.New("search provider searxng: connection refused")}, Fetch: guardedFetcher(t)}
	res, err := s.Run(context.Background(), Input{Prompt: "raft leader election"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != 0 || len(res.Failures) != 1 || res.Failures[0].Stage != "search" ||
		!strings.Contains(res.Failures[0].Reason, "connection refused") {
		t.Fatalf("result = %+v", res)
	}
	if res.ContextBlock() != "" {
		t.Errorf("context block for nothing: %q", res.ContextBlock())
	}
}

func TestRunAllFetchesFail(t *testing.T) {
	site := fakeSite(t, nil)
	s := &Shortlister{Search: &fakeSearch{hits: hits(site.URL, "/broken", "/loop", "/binary", "/missing")}, Fetch: guardedFetcher(t)}
	res, err := s.Run(context.Background(), Input{Prompt: "raft leader election"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != 0 || len(res.Failures) != 4 || res.Stats.Collected != 4 || res.Stats.Fetched != 0 {
		t.Fatalf("result = %+v", res)
	}
}

func TestRunSlowHostCutByBudget(t *testing.T) {
	site := fakeSite(t, nil)
	o := Defaults()
	o.Budget = 800 * time.Millisecond
	s := &Shortlister{Search: &fakeSearch{hits: hits(site.URL, "/raft-leader-election", "/slow")}, Fetch: guardedFetcher(t), Options: o}
	start := time.Now()
	res, err := s.Run(context.Background(), Input{Prompt: "raft leader election"}, nil)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if took > o.Budget+150*time.Millisecond {
		t.Fatalf("run took %s, budget %s", took, o.Budget)
	}
	if !res.TimedOut || !strings.Contains(failureFor(res, "/slow"), "cut by the shortlist budget") {
		t.Fatalf("slow host not named: %+v", res.Failures)
	}
	if len(res.Candidates) != 1 || !strings.HasSuffix(res.Candidates[0].URL, "/raft-leader-election") {
		t.Fatalf("the fast page should survive: %+v", res.Candidates)
	}
}

func TestRunSlowProviderCutBySearchShare(t *testing.T) {
	o := Defaults()
	o.Budget = time.Second
	s := &Shortlister{Search: &fakeSearch{delay: 10 * time.Second}, Fetch: guardedFetcher(t), Options: o}
	start := time.Now()
	res, err := s.Run(context.Background(), Input{Prompt: "raft leader election"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The reason proves the 40% cut; the time only that the run did not
	// wait for the search (with room for a loaded CI machine).
	if took := time.Since(start); took > 900*time.Millisecond {
		t.Fatalf("search stage took %s; it may use 40%% of %s", took, o.Budget)
	}
	if len(res.Failures) != 1 || !strings.Contains(res.Failures[0].Reason, "cut by the shortlist budget (400ms)") {
		t.Fatalf("failures = %+v; the cut should name the search stage's 400ms", res.Failures)
	}
}

func TestRunSeedURLsAndLinks(t *testing.T) {
	site := fakeSite(t, func(mux *http.ServeMux) {
		mux.HandleFunc("/seed", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, htmlPage("Distributed systems reading list", paragraph("A reading list about consensus, replication and failure handling in distributed systems.", 6)+
				`<ul><li><a href="/raft-leader-election?utm_source=x&fbclid=1">Raft leader election</a></li><li><a href="/login">Log in</a></li>`+
				`<li><a href="/pasta">Pasta</a></li><li><a href="https://accounts.example.com/profile">Profile</a></li>`+
				`<li><a href="/raft-leader-election">Raft again</a></li></ul>`))
		})
	})
	fs := &fakeSearch{hits: hits(site.URL, "/pasta")}
	s := &Shortlister{Search: fs, Fetch: guardedFetcher(t)}
	seed := site.URL + "/seed"
	res, err := s.Run(context.Background(), Input{Prompt: "What does " + seed + ", say about raft leader election?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs.queries) != 0 {
		t.Errorf("searched %v although the prompt names a URL", fs.queries)
	}
	if len(res.SeedURLs) != 1 || res.SeedURLs[0] != seed || res.Query != "What does say about raft leader election?" {
		t.Fatalf("seeds %v query %q", res.SeedURLs, res.Query)
	}
	// seed + article + pasta; login, the accounts host and the duplicate are skipped.
	if res.Stats.Collected != 3 {
		t.Fatalf("collected %d: %+v", res.Stats.Collected, res.Candidates)
	}
	var article *Candidate
	for i, c := range res.Candidates {
		if strings.Contains(c.URL, "/raft-leader-election") {
			article = &res.Candidates[i]
		}
	}
	if article == nil || article.Source != SourceSeedLink || !strings.Contains(strings.Join(article.Why, ";"), "same site as a URL in the prompt") {
		t.Fatalf("article = %+v", article)
	}
	if res.Candidates[0].URL != article.URL {
		t.Errorf("article should rank first: %+v", res.Candidates)
	}
	block := res.ContextBlock()
	if !strings.HasPrefix(block, "Seed URLs from the prompt:\n- "+seed+"\n") {
		t.Errorf("block:\n%s", block)
	}
}

func TestRunCorpusDocsJoin(t *testing.T) {
	s := &Shortlister{Search: &fakeSearch{err: errors.New("down")}, Fetch: guardedFetcher(t)}
	doc := CorpusDoc{URL: "corpus://cache/1", Title: "raft-notes.md", Text: strings.Repeat("Raft leader election needs a quorum of votes. ", 30)}
	res, err := s.Run(context.Background(), Input{Prompt: "raft leader election", Corpus: []CorpusDoc{doc}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) != 1 || res.Candidates[0].Source != SourceCorpus || res.Candidates[0].Why[0] != "from the local corpus" {
		t.Fatalf("candidates = %+v", res.Candidates)
	}
	if len(res.SearchQueries) != 2 || !strings.HasPrefix(res.SearchQueries[1], `"raft notes"`) {
		t.Errorf("corpus-enriched queries = %q", res.SearchQueries)
	}
}

func TestRunNoFetcher(t *testing.T) {
	if _, err := (&Shortlister{}).Run(context.Background(), Input{Prompt: "x"}, nil); err == nil {
		t.Fatal("want an error without a fetcher")
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &Shortlister{Search: &fakeSearch{}, Fetch: guardedFetcher(t)}
	if _, err := s.Run(ctx, Input{Prompt: "raft"}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

// TestRunFetchesConcurrently: six pages of 200 ms each take about 200 ms
// together, not 1.2 s.
func TestRunFetchesConcurrently(t *testing.T) {
	site := fakeSite(t, func(mux *http.ServeMux) {
		mux.HandleFunc("/delayed/", func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(200 * time.Millisecond)
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, htmlPage("Raft page "+r.URL.Path, paragraph("Raft leader election and quorum in replicated logs, page "+r.URL.Path, 10)))
		})
	})
	fs := &fakeSearch{hits: hits(site.URL, "/delayed/1", "/delayed/2", "/delayed/3", "/delayed/4", "/delayed/5", "/delayed/6")}
	res, err := (&Shortlister{Search: fs, Fetch: guardedFetcher(t)}).Run(context.Background(), Input{Prompt: "raft leader election"}, nil)
	if err != nil || res.Stats.Fetched != 6 {
		t.Fatalf("%v %+v", err, res)
	}
	if res.Stats.Fetch > 700*time.Millisecond {
		t.Fatalf("fetch stage took %s for six 200 ms pages: not concurrent", res.Stats.Fetch)
	}
	if fs.counts[0] != 40 {
		t.Errorf("one query should get the whole 40-result budget, got %v", fs.counts)
	}
}

// stuckEmbedder ignores its context and never answers in time.
type stuckEmbedder struct{}

func (stuckEmbedder) EmbedQuery(context.Context, string) ([]float32, error) {
	time.Sleep(5 * time.Second)
	return nil, errors.New("late")
}
func (stuckEmbedder) EmbedDocuments(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("late")
}

func TestRunStuckEmbedderKeepsBudget(t *testing.T) {
	site := fakeSite(t, nil)
	o := Defaults()
	o.Budget = 600 * time.Millisecond
	s := &Shortlister{Search: &fakeSearch{hits: hits(site.URL, "/raft-leader-election", "/pasta")}, Fetch: guardedFetcher(t), Embedder: stuckEmbedder{}, Options: o}
	start := time.Now()
	res, err := s.Run(context.Background(), Input{Prompt: "raft leader election"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > o.Budget+150*time.Millisecond {
		t.Fatalf("run took %s with a %s budget", took, o.Budget)
	}
	if len(res.Candidates) != 2 || !strings.HasSuffix(res.Candidates[0].URL, "/raft-leader-election") || !res.TimedOut {
		t.Fatalf("lexical ranking should survive: %+v %+v", res.Candidates, res.Failures)
	}
}
