package shortlist

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"sort"
	"strings"
	"time"
)

// score fills Semantic, Overlap, Bonus, Penalty, Score and Why of every
// pooled candidate (§5.5 step 5):
//
//	final = semantic + overlap_bonus_weight·overlap
//	        + same_domain_bonus (same host as a seed URL, with some relevance, path not noisy)
//	        − short_text_penalty (text < short_text_threshold) − noise_path_penalty (listing/legal path)
//
// semantic is the best cosine between the document (title, lead and path
// words) and the query or any sub-query. "Some relevance" is semantic at
// the embedder's relevance floor (0.05 on a transformer's scale) or any
// keyphrase overlap. semantic is 0 without an embedder or when every
// embedder failed (named in Failures), and ranking then rests on
// keyphrase overlap.
func (s *Shortlister) score(ctx context.Context, o Options, res *Result, pool []*cand, subQueries []string) {
	if len(pool) == 0 {
		return
	}
	docs := make([]string, len(pool))
	for i, c := range pool {
		docs[i] = c.Title + "\n" + capRunes(c.Text, o.DocLeadChars) + "\n" + pathWords(c.URL)
	}
	var used Embedder
	if s.Embedder != nil {
		queries := subQueries
		if len(queries) == 0 && res.Query != "" {
			queries = []string{res.Query}
		}
		var sem []float64
		if sem, used = s.embedScores(ctx, o, res, queries, docs); used != nil {
			for i, c := range pool {
				c.Semantic = sem[i]
			}
		}
	}
	floor := defaultSemanticFloor
	if used != nil {
		floor = semanticFloor(used)
	}
	seedHosts := map[string]bool{}
	for _, u := range res.SeedURLs {
		seedHosts[hostOf(u)] = true
	}
	for i, c := range pool {
		matched := matchPhrases(docs[i], res.Keyphrases)
		if len(res.Keyphrases) > 0 {
			c.Overlap = float64(len(matched)) / float64(len(res.Keyphrases))
		}
		noisy := noisyPath(c.URL)
		c.Bonus = o.OverlapBonusWeight * c.Overlap
		related := used != nil && c.Semantic >= floor
		sameSite := c.Source != SourceSeed && c.Source != SourceCorpus && seedHosts[hostOf(c.URL)] &&
			(related || c.Overlap > 0) && !noisy
		if sameSite {
			c.Bonus += o.SameDomainBonus
		}
		c.Penalty = 0
		if len([]rune(c.Text)) < o.ShortTextThreshold {
			c.Penalty += o.ShortTextPenalty
		}
		if noisy {
			c.Penalty += o.NoisePathPenalty
		}
		c.Score = c.Semantic + c.Bonus - c.Penalty
		c.Why = why(c, matched, len(res.Keyphrases), sameSite, related)
	}
}

// embedScores scores docs with the configured embedder and, when that
// fails (a provider down, a model that does not load) and a fallback is
// set, with the fallback. It returns the scores and the embedder that
// produced them (nil when none did) and names every failure, so -v shows
// which embedder ranked the candidates. The configured embedder gets the
// scoring time less fallbackReserve, so one that hangs still leaves the
// fallback time to run.
func (s *Shortlister) embedScores(ctx context.Context, o Options, res *Result, queries, docs []string) ([]float64, Embedder) {
	primaryCtx := ctx
	if dl, ok := ctx.Deadline(); ok && s.Fallback != nil {
		var cancel context.CancelFunc
		primaryCtx, cancel = context.WithDeadline(ctx, dl.Add(-min(fallbackReserve, o.scoreReserve(true)/2)))
		defer cancel()
	}
	sem, err := semanticBounded(primaryCtx, s.Embedder, queries, docs)
	if err == nil {
		return sem, s.Embedder
	}
	var cooling *CoolingError
	f := Failure{Stage: "embed", Reason: reason(err, o.Budget)}
	if errors.As(err, &cooling) {
		// Whole: the provider and when it is tried again come first, its
		// stored reason is already short.
		f.Reason, f.Skipped = cooling.Error(), true
	}
	if s.Fallback == nil || ctx.Err() != nil {
		f.Reason += " (ranked by keyphrases only)"
		res.Failures = append(res.Failures, f)
		return nil, nil
	}
	sem, ferr := semanticBounded(ctx, s.Fallback, queries, docs)
	if ferr != nil {
		f.Reason += "; builtin embedder: " + reason(ferr, o.Budget) + " (ranked by keyphrases only)"
		res.Failures = append(res.Failures, f)
		return nil, nil
	}
	f.Reason += " (scored with the builtin embedder instead)"
	res.Failures = append(res.Failures, f)
	return sem, s.Fallback
}

// semanticBounded runs semantic but returns when ctx ends even if the
// embedder does not honour it, so scoring never outlives the budget.
func semanticBounded(ctx context.Context, e Embedder, queries, docs []string) ([]float64, error) {
	type out struct {
		sem []float64
		err error
	}
	ch := make(chan out, 1)
	go func() {
		sem, err := Similarities(ctx, e, queries, docs)
		ch <- out{sem, err}
	}()
	select {
	case o := <-ch:
		return o.sem, o.err
	case <-ctx.Done():
		// An embedder that honours ctx returns at once: waiting for it a
		// moment lets a guarded one remember the failure before the turn,
		// and a CLI process, move on. One that does not is abandoned.
		select {
		case o := <-ch:
			return o.sem, o.err
		case <-time.After(settleGrace):
			return nil, ctx.Err()
		}
	}
}

// settleGrace bounds the wait for an embedder after its deadline.
const settleGrace = 100 * time.Millisecond

// Similarities returns, per document, the best cosine (at least 0)
// against the queries: how the shortlist scores pages, and how
// extract_links ranks links, with the same embedder.
func Similarities(ctx context.Context, e Embedder, queries, docs []string) ([]float64, error) {
	if len(queries) == 0 {
		return make([]float64, len(docs)), nil
	}
	qv := make([][]float32, len(queries))
	for i, q := range queries {
		v, err := e.EmbedQuery(ctx, q)
		if err != nil {
			return nil, err
		}
		qv[i] = v
	}
	dv, err := e.EmbedDocuments(ctx, docs)
	if err != nil {
		return nil, err
	}
	if len(dv) != len(docs) {
		return nil, fmt.Errorf("embedder returned %d vectors for %d documents", len(dv), len(docs))
	}
	out := make([]float64, len(docs))
	for i, d := range dv {
		best := 0.0
		for _, q := range qv {
			best = max(best, cosine(q, d))
		}
		out[i] = best
	}
	return out, nil
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// matchPhrases returns the keyphrases that occur in doc as whole words.
func matchPhrases(doc string, kps []string) []string {
	var words []string
	for _, t := range tokenize(doc) {
		words = append(words, t.word)
	}
	hay := " " + strings.Join(words, " ") + " "
	var out []string
	for _, k := range kps {
		if k != "" && strings.Contains(hay, " "+k+" ") {
			out = append(out, k)
		}
	}
	return out
}

// pathWords are the words of a URL's path ("/2024/raft-leader-election"
// → "2024 raft leader election"): slugs often name the topic.
func pathWords(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	p, _ := url.PathUnescape(u.Path)
	return strings.Join(strings.FieldsFunc(p, func(r rune) bool {
		return r == '/' || r == '-' || r == '_' || r == '.' || r == '+'
	}), " ")
}

// why gives up to four reasons a candidate ranks where it does.
func why(c *cand, matched []string, nkps int, sameSite, related bool) []string {
	var out []string
	switch c.Source {
	case SourceSeed:
		out = append(out, "named in the prompt")
	case SourceCorpus:
		out = append(out, "from the local corpus")
	case SourceSeedLink:
		out = append(out, "linked from "+c.foundBy)
	case SourceSearch:
		out = append(out, fmt.Sprintf("search result for %q", capRunes(c.foundBy, 80)))
	}
	if related {
		out = append(out, fmt.Sprintf("semantic similarity %.2f", c.Semantic))
	}
	if len(matched) > 0 {
		shown := matched[:min(3, len(matched))]
		out = append(out, fmt.Sprintf("matches %d of %d keyphrases (%s)", len(matched), nkps, strings.Join(shown, ", ")))
	}
	if sameSite {
		out = append(out, "same site as a URL in the prompt")
	}
	return out[:min(4, len(out))]
}

// topK sorts by score (ties keep collection order) and keeps k.
func topK(pool []*cand, k int) []Candidate {
	sort.SliceStable(pool, func(i, j int) bool {
		if pool[i].Score != pool[j].Score {
			return pool[i].Score > pool[j].Score
		}
		return pool[i].order < pool[j].order
	})
	out := make([]Candidate, 0, min(k, len(pool)))
	for _, c := range pool[:min(k, len(pool))] {
		out = append(out, c.Candidate)
	}
	return out
}
