package research

import (
	"math"
	"strings"
	"testing"
)

func TestSeqRatioMatchesDifflib(t *testing.T) {
	// Values from Python's difflib.SequenceMatcher(None, a, b).ratio().
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"chapter 2", "chapter 2 methods", 0.692308},
		{"chapter 2", "chapter 20 results", 0.666667},
		{"rolback", "rollback", 0.933333},
		{"the pager", "pager rollback journal", 0.322581},
		{"abcdxyz", "xyzabcd", 0.571429},
	} {
		if got := seqRatio(c.a, c.b); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("seqRatio(%q, %q) = %f, want %f", c.a, c.b, got, c.want)
		}
	}
}

func TestMatchSectionStrict(t *testing.T) {
	secs := []Section{
		{ID: "contents-001", Title: "Chapter 2: Methods", Start: 0, End: 30}, // TOC alias
		{ID: "chapter-2-methods-002", Title: "Chapter 2: Methods", Start: 100, End: 5000},
		{ID: "chapter-20-results-003", Title: "Chapter 20: Results", Start: 5000, End: 9000},
		{ID: "rollback-004", Title: "Rollback", Start: 9000, End: 9500},
		{ID: "rollback-journal-005", Title: "Rollback journal", Start: 9500, End: 9900},
	}
	for _, c := range []struct {
		q, want string
	}{
		{"chapter-20-results-003", "chapter-20-results-003"}, // id
		{"chapter 2: methods", "chapter-2-methods-002"},      // equal title: the canonical (largest), not the TOC alias
		{"Chapter 2", "chapter-2-methods-002"},               // clear winner over "Chapter 20"
		{"rollback", "rollback-004"},
	} {
		s, cands := MatchSection(secs, c.q)
		if s == nil || s.ID != c.want {
			t.Errorf("MatchSection(%q) = %+v (candidates %v), want %s", c.q, s, cands, c.want)
		}
	}
	// A typo does not match, but the close titles are suggested.
	s, cands := MatchSection(secs, "Rolback jornal")
	if s != nil || len(cands) == 0 || !strings.Contains(strings.Join(cands, ","), "rollback-journal-005") {
		t.Errorf("typo: %+v %v", s, cands)
	}
	if s, cands := MatchSection(secs, "Appendix Z"); s != nil || len(cands) != 0 {
		t.Errorf("unrelated: %+v %v", s, cands)
	}
}

func TestNearDuplicate(t *testing.T) {
	a := "The pager rolls back the journal when a transaction fails, restoring the original pages."
	if !NearDuplicate(a, a) || !NearDuplicate(a, strings.Replace(a, "fails", "fail", 1)) {
		t.Error("a near copy is not a duplicate")
	}
	if NearDuplicate(a, "Shared locks allow many readers but only one writer at a time in the pager.") || NearDuplicate(a, a[:40]) {
		t.Error("different passages are duplicates")
	}
	// Non-ASCII: 7 letters of 88 become "€" (3 bytes each): still 92%
	// alike by characters, though not by bytes.
	b := []rune(a)
	for _, i := range []int{4, 14, 24, 34, 44, 54, 64} {
		b[i] = '€'
	}
	if !NearDuplicate(a, string(b)) {
		t.Error("a near copy with non-ASCII letters is not a duplicate")
	}
}
