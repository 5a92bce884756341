package research

import (
	"math"
	"testing"
)

func TestCoverage(t *testing.T) {
	// "pager" is in 1 chunk of 100, "rollback" in 50, "zebra" in none.
	df := map[string]int{"pager": 1, "rollback": 50}
	q := newQueryTerms(QueryTerms("how does the pager handle rollbacks of a zebra"), df, 100)
	if len(q.stems) != 4 { // pager, handle, rollback, zebra
		t.Fatalf("stems %v", q.stems)
	}
	for _, tc := range []struct {
		text     string
		min, max float64
	}{
		{"nothing relevant here", 0, 0},
		{"The Pager handles rollback and a zebra.", 1, 1},
		// A rare word counts more than a common one.
		{"pager", 0.2, 0.35},
		{"rollback", 0, 0.1},
	} {
		got := q.coverage(tc.text)
		if got < tc.min-1e-9 || got > tc.max+1e-9 || math.IsNaN(got) {
			t.Errorf("coverage(%q) = %.3f, want in [%.2f, %.2f]", tc.text, got, tc.min, tc.max)
		}
	}
	if (queryTerms{}).coverage("anything") != 0 {
		t.Error("an empty query covers nothing")
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{"sessions": "session", "queries": "query", "ingesting": "ingest", "rolled": "roll",
		"boxes": "box", "class": "class", "gas": "gas", "is": "is", "thing": "thing"} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}
