package shortlist

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askygo/asky/internal/research"
)

// builtinStatic is the corpus's default embedder, loaded lazily like the
// preload core does.
func builtinStatic() Embedder {
	return Lazy(func() (Embedder, error) { return research.NewBuiltinStatic() })
}

// commuteSite serves an unrelated page that shares letters with the query
// ("community", "committee", "do") first and a paraphrase of the query
// second: only meaning, not spelling, ranks the second first.
func commuteSite(t testing.TB) (string, []string) {
	site := fakeSite(t, func(mux *http.ServeMux) {
		for path, page := range map[string]string{
			"/community": htmlPage("Community calendar", paragraph("The community hall hosts a market every Saturday; do come and meet the committee, "+
				"who organise the summer fête and the winter concert.", 8)),
			"/routine": htmlPage("My daily routine", paragraph("I cycle to work every day. The ride along the canal takes twenty minutes "+
				"and I lock the bike in the basement of the office, with gloves and a reflective jacket in winter.", 6)),
		} {
			mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprint(w, page)
			})
		}
	})
	return site.URL, []string{"/community", "/routine"}
}

func TestSemanticEmbedderRanksParaphraseFirst(t *testing.T) {
	base, paths := commuteSite(t)
	run := func(e Embedder) *Result {
		s := &Shortlister{Search: &fakeSearch{hits: hits(base, paths...)}, Fetch: guardedFetcher(t), Embedder: e}
		res, err := s.Run(context.Background(), Input{Prompt: "how do I commute"}, nil)
		if err != nil || len(res.Candidates) != 2 || len(res.Failures) != 0 {
			t.Fatalf("run: %v %+v %+v", err, res, res.Failures)
		}
		return res
	}
	res := run(builtinStatic())
	top := res.Candidates[0]
	if !strings.HasSuffix(top.URL, "/routine") {
		t.Fatalf("builtin embedder ranked %s first: %+v", top.URL, res.Candidates)
	}
	if !strings.Contains(strings.Join(top.Why, ";"), "semantic similarity") {
		t.Errorf("the paraphrase is not called similar: %q", top.Why)
	}
	// hash-v1 matches spelling, not meaning: it prefers the community
	// page, which is why the shortlist uses the corpus embedder.
	if res := run(research.HashV1{}); strings.HasSuffix(res.Candidates[0].URL, "/routine") {
		t.Errorf("hash-v1 ranked the paraphrase first too; the test no longer shows the semantic gain: %+v", res.Candidates)
	}
}

// countingLoad is a lazy load that counts its calls.
func countingLoad(n *atomic.Int32, e Embedder, err error) Embedder {
	return Lazy(func() (Embedder, error) { n.Add(1); return e, err })
}

func TestLazyEmbedderLoadsOnlyToScore(t *testing.T) {
	base, paths := commuteSite(t)
	var loads, fallbackLoads atomic.Int32
	s := &Shortlister{Fetch: guardedFetcher(t), Embedder: countingLoad(&loads, bagEmbedder{}, nil), Fallback: countingLoad(&fallbackLoads, bagEmbedder{}, nil)}
	// Nothing to score (no search provider, no seed URL): nothing loads.
	if _, err := s.Run(context.Background(), Input{Prompt: "how do I commute"}, nil); err != nil {
		t.Fatal(err)
	}
	if loads.Load() != 0 || fallbackLoads.Load() != 0 {
		t.Fatalf("loaded %d/%d times without candidates", loads.Load(), fallbackLoads.Load())
	}
	s.Search = &fakeSearch{hits: hits(base, paths...)}
	if _, err := s.Run(context.Background(), Input{Prompt: "how do I commute", SubQueries: []string{"commute", "cycle to work"}}, nil); err != nil {
		t.Fatal(err)
	}
	if loads.Load() != 1 || fallbackLoads.Load() != 0 {
		t.Fatalf("loads = %d, fallback loads = %d; want 1 and 0", loads.Load(), fallbackLoads.Load())
	}
}

// hangingEmbedder answers only when its context ends, like a provider
// behind a dead network route.
type hangingEmbedder struct{}

func (hangingEmbedder) EmbedQuery(ctx context.Context, _ string) ([]float32, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}
func (hangingEmbedder) EmbedDocuments(ctx context.Context, _ []string) ([][]float32, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestFailingEmbedderFallsBackToBuiltin(t *testing.T) {
	base, paths := commuteSite(t)
	for _, tc := range []struct {
		name     string
		primary  Embedder
		fallback Embedder
		top      string
		reason   string
	}{
		{"provider down", errEmbedder{}, builtinStatic(), "/routine", "embedder down (scored with the builtin embedder instead)"},
		{"provider hangs", hangingEmbedder{}, builtinStatic(), "/routine", "cut by the shortlist budget (1.5s) (scored with the builtin embedder instead)"},
		{"provider fails to load", Lazy(func() (Embedder, error) { return nil, errors.New("unknown embedding provider \"x\"") }), builtinStatic(),
			"/routine", `unknown embedding provider "x" (scored with the builtin embedder instead)`},
		{"both down", errEmbedder{}, errEmbedder{}, "/community", "embedder down; builtin embedder: embedder down (ranked by keyphrases only)"},
		{"no fallback", errEmbedder{}, nil, "/community", "embedder down (ranked by keyphrases only)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Defaults()
			o.Budget = 1500 * time.Millisecond
			s := &Shortlister{Search: &fakeSearch{hits: hits(base, paths...)}, Fetch: guardedFetcher(t), Embedder: tc.primary, Fallback: tc.fallback, Options: o}
			start := time.Now()
			res, err := s.Run(context.Background(), Input{Prompt: "how do I commute"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > o.Budget+300*time.Millisecond {
				t.Errorf("run took %s with a %s budget", took, o.Budget)
			}
			if len(res.Candidates) != 2 || !strings.HasSuffix(res.Candidates[0].URL, tc.top) {
				t.Fatalf("top should be %s: %+v", tc.top, res.Candidates)
			}
			if len(res.Failures) != 1 || res.Failures[0].Stage != "embed" || res.Failures[0].Reason != tc.reason {
				t.Fatalf("failures = %+v, want one embed failure %q", res.Failures, tc.reason)
			}
			if !strings.Contains(res.Report(), "failed embed: "+tc.reason) {
				t.Errorf("-v report does not name it:\n%s", res.Report())
			}
		})
	}
}

// calibrationPages are synthetic query/page pairs (not the shared eval
// queries): each query paraphrases its own page and shares few words with
// it; every other page is unrelated to it.
var calibrationPages = []struct{ query, title, text string }{
	{"how do I commute", "My daily routine", "I cycle to work every day. The ride along the canal takes twenty minutes, and I lock the bike in the basement of the office. In winter I wear gloves and a reflective jacket."},
	{"best way to keep bread fresh", "Storing loaves", "A loaf stays soft longest in a linen bag or a wooden box at room temperature. The fridge makes the crumb stale faster; freeze slices you will not eat within two days and toast them straight from the freezer."},
	{"why is my laptop battery draining quickly", "Power use on notebooks", "Screen brightness, background sync and a browser with many tabs are the usual reasons a notebook runs out of charge. Check the energy report, dim the display and remove apps that start at login."},
	{"how do plants make food from sunlight", "Photosynthesis explained", "Leaves capture light with chlorophyll and use its energy to turn carbon dioxide and water into glucose, releasing oxygen. The reaction happens in the chloroplasts of the leaf cells."},
	{"tips for sleeping better at night", "Rest and the bedroom", "Keep the bedroom dark and cool, go to bed at the same hour, avoid coffee after lunch and put the phone away an hour before lights out. A short walk in the morning light also helps."},
	{"how to learn a foreign language fast", "Picking up Spanish in six months", "Daily conversation with a tutor, spaced repetition flashcards for vocabulary and listening to podcasts while walking got me to a fluent level. Grammar drills mattered less than speaking."},
	{"what causes earthquakes", "Plate tectonics", "The crust is broken into plates that slide past each other. Stress builds where they lock together and is released suddenly along a fault, sending seismic waves through the ground."},
	{"how to save money on groceries", "Cheaper weekly shopping", "Plan the week's meals, write a list, buy store brands and seasonal vegetables, and cook in batches. Shopping after eating avoids impulse buys; compare the unit price on the shelf label."},
	{"is running bad for your knees", "Jogging and joint health", "Studies of recreational joggers find no higher rate of arthritis than in people who do not jog; the cartilage adapts to load. Sudden jumps in mileage and poor shoes cause most injuries."},
	{"how does a car engine work", "The four-stroke cycle", "Pistons draw in a mix of fuel and air, compress it, a spark plug ignites it and the expanding gas pushes the piston down, turning the crankshaft; the exhaust stroke then clears the cylinder."},
	{"when should I water tomato plants", "Growing tomatoes", "Give tomatoes a deep soak in the early morning two or three times a week rather than a little every day, and keep the leaves dry to avoid blight. Mulch keeps the soil moist."},
	{"how to speed up a slow database query", "Indexing SQL tables", "Add an index on the columns in the WHERE clause, look at the query plan with EXPLAIN, avoid selecting every column and replace correlated subqueries with joins."},
}

// TestStaticRelevanceFloor is the calibration of the static embedder's
// relevance floor (research.StaticEmbedder.RelevanceFloor): §5.5's 0.05
// is a transformer's figure, and the static embedder's cosines are
// compressed (unrelated pages score about 0.2). The floor must pass every
// related pair and stop most unrelated ones, as 0.05 does for hash-v1 on
// the same pages (the 70th percentile of unrelated pairs for both).
func TestStaticRelevanceFloor(t *testing.T) {
	ctx := context.Background()
	st, err := research.NewBuiltinStatic()
	if err != nil {
		t.Fatal(err)
	}
	var docs, queries []string
	for _, p := range calibrationPages {
		docs = append(docs, p.title+"\n"+p.text+"\nblog 2024 post")
		queries = append(queries, p.query)
	}
	pairs := func(e Embedder) (related, unrelated []float64) {
		for i, q := range queries {
			sem, err := Similarities(ctx, e, []string{q}, docs)
			if err != nil {
				t.Fatal(err)
			}
			for j, s := range sem {
				if i == j {
					related = append(related, s)
				} else {
					unrelated = append(unrelated, s)
				}
			}
		}
		sort.Float64s(related)
		sort.Float64s(unrelated)
		return related, unrelated
	}
	below := func(xs []float64, floor float64) float64 {
		return float64(sort.SearchFloat64s(xs, floor)) / float64(len(xs))
	}
	floor := semanticFloor(st)
	if floor == defaultSemanticFloor {
		t.Fatal("the static embedder has no relevance floor of its own")
	}
	rel, unrel := pairs(st)
	_, hashUnrel := pairs(research.HashV1{})
	t.Logf("static: related %.2f–%.2f, unrelated median %.2f; floor %.2f stops %.0f%% of unrelated pairs (0.05 stops %.0f%% for hash-v1, %.0f%% for static)",
		rel[0], rel[len(rel)-1], unrel[len(unrel)/2], floor, 100*below(unrel, floor), 100*below(hashUnrel, defaultSemanticFloor), 100*below(unrel, defaultSemanticFloor))
	if rel[0] < floor {
		t.Errorf("a related page scores %.3f, under the floor %.2f", rel[0], floor)
	}
	if got, ref := below(unrel, floor), below(hashUnrel, defaultSemanticFloor); got < ref-0.05 {
		t.Errorf("floor %.2f stops %.0f%% of unrelated pairs; 0.05 stops %.0f%% for hash-v1", floor, 100*got, 100*ref)
	}
	if below(unrel, defaultSemanticFloor) > 0.1 {
		t.Errorf("0.05 stops %.0f%% of unrelated static pairs: the scale is no longer compressed, recalibrate", 100*below(unrel, defaultSemanticFloor))
	}
}

// floorEmbedder is fixedEmbedder on a compressed scale.
type floorEmbedder struct{ fixedEmbedder }

func (floorEmbedder) RelevanceFloor() float64 { return 0.25 }

func TestSameSiteBonusUsesTheEmbeddersFloor(t *testing.T) {
	long := strings.Repeat("filler words about nothing in particular ", 30)
	for _, tc := range []struct {
		emb   Embedder
		bonus float64
	}{{fixedEmbedder{"filler": 0.2}, 0.05}, {floorEmbedder{fixedEmbedder{"filler": 0.2}}, 0}, {floorEmbedder{fixedEmbedder{"filler": 0.3}}, 0.05}} {
		c := cand{Candidate: Candidate{URL: "https://b.example/x", Text: long, Source: SourceSeedLink}}
		res := &Result{Query: "raft", Keyphrases: []string{"raft"}, SeedURLs: []string{"https://b.example/"}}
		(&Shortlister{Embedder: Lazy(func() (Embedder, error) { return tc.emb, nil })}).score(context.Background(), Defaults(), res, []*cand{&c}, nil)
		if c.Bonus != tc.bonus || strings.Contains(strings.Join(c.Why, ";"), "semantic") != (tc.bonus > 0) {
			t.Errorf("%T at %.2f: bonus %.2f why %q, want bonus %.2f", tc.emb, c.Semantic, c.Bonus, c.Why, tc.bonus)
		}
	}
}
