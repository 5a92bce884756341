package research

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// EvalQuery is one line of an eval file.
type EvalQuery struct {
	Query   string   `json:"query"`
	GoldAny []string `json:"gold_any"`
	Kind    string   `json:"kind,omitempty"`
}

// EvalResult is the outcome of one query.
type EvalResult struct {
	Query string `json:"query"`
	Kind  string `json:"kind,omitempty"`
	// Rank is the 1-based rank of the first hit, 0 for a miss.
	Rank int    `json:"rank"`
	Top  string `json:"top,omitempty"`
}

// EvalReport summarises a run.
type EvalReport struct {
	K       int          `json:"k"`
	Queries int          `json:"queries"`
	Hits    int          `json:"hits"`
	Recall  float64      `json:"recall"`
	MRR     float64      `json:"mrr"`
	Results []EvalResult `json:"results"`
}

// ReadEvalQueries parses JSONL ({query, gold_any[]} per line).
func ReadEvalQueries(r io.Reader) ([]EvalQuery, error) {
	var out []EvalQuery
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		var q EvalQuery
		if err := json.Unmarshal([]byte(t), &q); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if q.Query == "" || len(q.GoldAny) == 0 {
			return nil, fmt.Errorf("line %d: needs \"query\" and a non-empty \"gold_any\"", line)
		}
		out = append(out, q)
	}
	return out, sc.Err()
}

// NormalizeForMatch lower-cases, straightens curly quotes and collapses
// whitespace, so gold strings match regardless of layout.
func NormalizeForMatch(s string) string {
	s = strings.NewReplacer("\u2018", "'", "\u2019", "'", "\u201c", `"`, "\u201d", `"`, "\u00a0", " ").Replace(s)
	return strings.ToLower(CollapseSpace(s))
}

// Evaluate runs every query with top-k retrieval. A query hits when any
// gold string occurs in one of the top-k chunk texts.
func Evaluate(ctx context.Context, ix *Index, qs []EvalQuery, o SearchOptions) (*EvalReport, error) {
	k := o.TopK
	rep := &EvalReport{K: k, Queries: len(qs)}
	var rr float64
	for _, q := range qs {
		hits, err := ix.Search(ctx, q.Query, o)
		if err != nil {
			return nil, err
		}
		res := EvalResult{Query: q.Query, Kind: q.Kind}
		for i, h := range hits {
			text := NormalizeForMatch(h.Text)
			for _, g := range q.GoldAny {
				if strings.Contains(text, NormalizeForMatch(g)) {
					res.Rank = i + 1
					break
				}
			}
			if res.Rank > 0 {
				break
			}
		}
		if len(hits) > 0 {
			res.Top = Breadcrumb(hits[0].Title, hits[0].Section)
		}
		if res.Rank > 0 {
			rep.Hits++
			rr += 1 / float64(res.Rank)
		}
		rep.Results = append(rep.Results, res)
	}
	if len(qs) > 0 {
		rep.Recall = float64(rep.Hits) / float64(len(qs))
		rep.MRR = rr / float64(len(qs))
	}
	return rep, nil
}
