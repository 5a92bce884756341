package shortlist

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

// fixedEmbedder maps documents containing a marker word to a fixed
// similarity with every query.
type fixedEmbedder map[string]float32

func (f fixedEmbedder) EmbedQuery(context.Context, string) ([]float32, error) {
	return []float32{1, 0}, nil
}
func (f fixedEmbedder) EmbedDocuments(_ context.Context, docs []string) ([][]float32, error) {
	out := make([][]float32, len(docs))
	for i, d := range docs {
		out[i] = []float32{0, 1} // orthogonal: similarity 0
		for marker, sim := range f {
			if strings.Contains(d, marker) {
				out[i] = []float32{sim, float32(math.Sqrt(float64(1 - sim*sim)))}
			}
		}
	}
	return out, nil
}

func TestScore(t *testing.T) {
	long := strings.Repeat("filler words about nothing in particular ", 30) // > 700 chars
	short := "raft leader election in brief"                                // < 700 chars
	o := Defaults()
	for _, tc := range []struct {
		name     string
		c        cand
		emb      Embedder
		seeds    []string
		semantic float64
		overlap  float64
		bonus    float64
		penalty  float64
		why      []string
	}{
		{name: "no signal", c: cand{Candidate: Candidate{URL: "https://a.example/x", Text: long, Source: SourceSearch}, foundBy: "raft"},
			why: []string{`search result for "raft"`}},
		{name: "full overlap", c: cand{Candidate: Candidate{URL: "https://a.example/x", Text: "Raft leader election. " + long, Source: SourceSearch}, foundBy: "q"},
			overlap: 1, bonus: 0.10, why: []string{`search result for "q"`, "matches 3 of 3 keyphrases (raft, leader, election)"}},
		{name: "overlap from path words", c: cand{Candidate: Candidate{URL: "https://a.example/raft-election", Text: long, Source: SourceSearch}},
			overlap: 2.0 / 3, bonus: 0.10 * 2 / 3},
		{name: "short text penalty", c: cand{Candidate: Candidate{URL: "https://a.example/x", Text: short, Source: SourceSearch}},
			overlap: 1, bonus: 0.10, penalty: 0.10},
		{name: "noise path penalty", c: cand{Candidate: Candidate{URL: "https://a.example/tag/raft", Text: long, Source: SourceSearch}},
			overlap: 1.0 / 3, bonus: 0.10 / 3, penalty: 0.15},
		{name: "same domain bonus", seeds: []string{"https://www.a.example/start"},
			c:       cand{Candidate: Candidate{URL: "https://a.example/raft", Text: long, Source: SourceSeedLink}, foundBy: "a.example"},
			overlap: 1.0 / 3, bonus: 0.10/3 + 0.05, why: []string{"linked from a.example", "matches 1 of 3 keyphrases (raft)", "same site as a URL in the prompt"}},
		{name: "same domain needs relevance", seeds: []string{"https://a.example/start"},
			c: cand{Candidate: Candidate{URL: "https://a.example/about", Text: long, Source: SourceSeedLink}}},
		{name: "same domain not on noisy path", seeds: []string{"https://a.example/start"},
			c:       cand{Candidate: Candidate{URL: "https://a.example/tag/raft", Text: long, Source: SourceSeedLink}},
			overlap: 1.0 / 3, bonus: 0.10 / 3, penalty: 0.15},
		{name: "semantic", emb: fixedEmbedder{"filler": 0.6},
			c:        cand{Candidate: Candidate{URL: "https://b.example/x", Text: long, Source: SourceSearch}, foundBy: "q"},
			semantic: 0.6, why: []string{`search result for "q"`, "semantic similarity 0.60"}},
		{name: "semantic lets a same-site page earn the bonus", emb: fixedEmbedder{"filler": 0.06}, seeds: []string{"https://b.example/"},
			c:        cand{Candidate: Candidate{URL: "https://b.example/x", Text: long, Source: SourceSeedLink}},
			semantic: 0.06, bonus: 0.05},
		{name: "seed itself gets no same-site bonus", seeds: []string{"https://a.example/raft"},
			c:       cand{Candidate: Candidate{URL: "https://a.example/raft", Text: long, Source: SourceSeed}},
			overlap: 1.0 / 3, bonus: 0.10 / 3, why: []string{"named in the prompt", "matches 1 of 3 keyphrases (raft)"}},
		{name: "corpus", c: cand{Candidate: Candidate{URL: "corpus://cache/1", Title: "Raft notes", Text: long, Source: SourceCorpus}},
			overlap: 1.0 / 3, bonus: 0.10 / 3, why: []string{"from the local corpus", "matches 1 of 3 keyphrases (raft)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Shortlister{Embedder: tc.emb}
			res := &Result{Query: "raft leader election", Keyphrases: []string{"raft", "leader", "election"}, SeedURLs: tc.seeds}
			c := tc.c
			s.score(context.Background(), o, res, []*cand{&c}, nil)
			near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
			if !near(c.Semantic, tc.semantic) || !near(c.Overlap, tc.overlap) || !near(c.Bonus, tc.bonus) || !near(c.Penalty, tc.penalty) {
				t.Fatalf("semantic %.3f overlap %.3f bonus %.3f penalty %.3f; want %.3f %.3f %.3f %.3f",
					c.Semantic, c.Overlap, c.Bonus, c.Penalty, tc.semantic, tc.overlap, tc.bonus, tc.penalty)
			}
			if !near(c.Score, c.Semantic+c.Bonus-c.Penalty) {
				t.Errorf("score %.3f != semantic + bonus - penalty", c.Score)
			}
			if tc.why != nil && strings.Join(c.Why, "|") != strings.Join(tc.why, "|") {
				t.Errorf("why = %q, want %q", c.Why, tc.why)
			}
			if len(c.Why) > 4 {
				t.Errorf("%d reasons", len(c.Why))
			}
		})
	}
}

func TestTopKOrder(t *testing.T) {
	var pool []*cand
	for i, s := range []float64{0.1, 0.5, 0.5, -0.2, 0.9, 0.3, 0.2, 0.4, 0.0, 0.6} {
		pool = append(pool, &cand{Candidate: Candidate{URL: string(rune('a' + i)), Score: s}, order: i})
	}
	got := topK(pool, 8)
	var urls string
	for _, c := range got {
		urls += c.URL
	}
	if urls != "ejbchfga" {
		t.Fatalf("order = %s", urls)
	}
}

func TestContextBlock(t *testing.T) {
	res := &Result{SeedURLs: []string{"https://a.example/"}, Stats: Stats{Scored: 9}}
	for i := range 7 {
		res.Candidates = append(res.Candidates, Candidate{URL: "https://b.example/" + string(rune('a'+i)), Title: "Title\n" + string(rune('A'+i)),
			Score: 0.5 - float64(i)/10, Why: []string{"one", "two"}, Snippet: strings.Repeat("word ", 200)})
	}
	block := res.ContextBlock()
	if !strings.HasPrefix(block, "Seed URLs from the prompt:\n- https://a.example/\n\nSource shortlist (top 5 of 9 ranked candidates):\n1. Title A (score=0.500)\nURL: https://b.example/a\nWhy: one; two\nSnippet: word word") {
		t.Fatalf("block:\n%s", block)
	}
	if strings.Contains(block, "6. ") || !strings.Contains(block, "5. Title E (score=0.100)") || !strings.Contains(block, "(score=0.100)") {
		t.Errorf("want exactly five entries:\n%s", block)
	}
	for _, line := range strings.Split(block, "\n") {
		if strings.HasPrefix(line, "Snippet: ") && len([]rune(strings.TrimPrefix(line, "Snippet: "))) > 420 {
			t.Errorf("snippet longer than 420 runes")
		}
	}
	if (&Result{}).ContextBlock() != "" || (*Result)(nil).ContextBlock() != "" {
		t.Error("empty result should render nothing")
	}
	neg := &Result{Candidates: []Candidate{{URL: "https://c.example/", Score: -0.25}}, Stats: Stats{Scored: 1}}
	if !strings.Contains(neg.ContextBlock(), "1. https://c.example/ (score=-0.250)") {
		t.Errorf("untitled block:\n%s", neg.ContextBlock())
	}
}

func TestStatsBanner(t *testing.T) {
	if got := (Stats{Collected: 31, Fetched: 18, Scored: 14, Kept: 8}).Banner(); got != "C:31 F:18 S:14 W:8" {
		t.Fatal(got)
	}
}

func TestReport(t *testing.T) {
	r := &Result{
		Stats:         Stats{Collected: 3, Fetched: 2, Scored: 2, Kept: 1, Collect: 1500 * time.Microsecond, Fetch: 200 * time.Millisecond, Total: 202 * time.Millisecond},
		SearchQueries: []string{"raft"},
		Candidates:    []Candidate{{URL: "https://a.example/raft", Score: 0.25, Source: SourceSearch}},
		Failures:      []Failure{{Stage: "fetch", URL: "https://b.example/slow", Reason: "cut by the shortlist budget (6s)"}, {Stage: "search", Reason: "down"}},
		TimedOut:      true,
	}
	want := `shortlist: C:3 F:2 S:2 W:1 (collect 2ms, fetch 200ms, score 0s, total 202ms), budget reached
  search: "raft"
  1. 0.250 https://a.example/raft [search]
  failed fetch https://b.example/slow: cut by the shortlist budget (6s)
  failed search: down`
	if got := r.Report(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}
