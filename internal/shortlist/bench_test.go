package shortlist

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/askygo/asky/internal/research"
)

// BenchmarkShortlistConcurrentFetch runs the whole pipeline over a fake
// site of 20 candidate pages, each answering after 50–200 ms. Fetching is
// concurrent, so the stage should take about the slowest fetch (200 ms),
// not the sum (2.5 s); it reports the fetch stage and the whole run as
// multiples of the slowest fetch (target ≤ 1.5). Scoring uses the builtin
// static embedder, the corpus default, as a default install does.
func BenchmarkShortlistConcurrentFetch(b *testing.B) {
	const pages = 20
	delay := func(i int) time.Duration {
		return 50*time.Millisecond + time.Duration(i)*150*time.Millisecond/(pages-1)
	}
	slowest := delay(pages - 1)
	site := fakeSite(b, func(mux *http.ServeMux) {
		for i := range pages {
			mux.HandleFunc(fmt.Sprintf("/page/%d", i), func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(delay(i))
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprint(w, htmlPage(fmt.Sprintf("Raft note %d", i), paragraph(fmt.Sprintf("Note %d on raft leader election, quorum and terms in replicated logs.", i), 12)))
			})
		}
	})
	var paths []string
	for i := range pages {
		paths = append(paths, fmt.Sprintf("/page/%d", i))
	}
	s := &Shortlister{Search: &fakeSearch{hits: hits(site.URL, paths...)}, Fetch: guardedFetcher(b), Embedder: builtinStatic()}
	var fetchStage, score, total time.Duration
	b.ResetTimer()
	for b.Loop() {
		res, err := s.Run(context.Background(), Input{Prompt: "raft leader election quorum"}, nil)
		if err != nil || res.Stats.Fetched != pages || len(res.Failures) != 0 {
			b.Fatalf("run: %v %+v %+v", err, res.Stats, res.Failures)
		}
		fetchStage += res.Stats.Fetch
		score += res.Stats.Score
		total += res.Stats.Total
	}
	n := time.Duration(b.N)
	b.ReportMetric(float64(fetchStage/n)/float64(slowest), "fetch/slowest")
	b.ReportMetric(float64(total/n)/float64(slowest), "run/slowest")
	b.Logf("fetch stage %s, score stage %s, whole run %s, slowest single fetch %s (serial sum would be %s)",
		(fetchStage / n).Round(time.Millisecond), (score / n).Round(time.Microsecond), (total / n).Round(time.Millisecond), slowest, 2500*time.Millisecond)
}

// BenchmarkShortlistScore scores a full pool (40 candidates with the
// default 1400-character lead, three sub-queries) and reports the cost
// per candidate: the scoring must stay negligible next to the fetch.
func BenchmarkShortlistScore(b *testing.B) {
	const n = 40
	lead := paragraph("Raft consensus elects a leader with randomized election timeouts; a partitioned minority cannot reach a quorum.", 14)
	for _, tc := range []struct {
		name string
		emb  Embedder
	}{{"lexical", nil}, {"builtin-static", builtinStatic()}, {"hash-v1", research.HashV1{}}} {
		b.Run(tc.name, func(b *testing.B) {
			o := Defaults().withDefaults()
			s := &Shortlister{Embedder: tc.emb}
			pool := make([]*cand, n)
			res := &Result{Query: "raft leader election", Keyphrases: []string{"raft", "leader", "election"}}
			subs := []string{"raft leader election", "raft partition quorum", "randomized election timeouts"}
			s.score(context.Background(), o, res, nil, subs) // no candidates: loads nothing
			for b.Loop() {
				for i := range pool {
					pool[i] = &cand{Candidate: Candidate{URL: fmt.Sprintf("https://a.example/raft/%d", i), Title: fmt.Sprintf("Raft note %d", i), Text: lead, Source: SourceSearch}}
				}
				s.score(context.Background(), o, res, pool, subs)
			}
			if len(res.Failures) != 0 {
				b.Fatal(res.Failures)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/candidate")
		})
	}
}
