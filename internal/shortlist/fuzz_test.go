package shortlist

import (
	"slices"
	"strings"
	"testing"
)

// FuzzKeyphrases: any text yields at most top lowercase phrases of one to
// three words, the same ones every time, and ExpandQuery keeps the query
// first within its cap.
func FuzzKeyphrases(f *testing.F) {
	for _, s := range []string{"", "a", "Raft consensus. Leader election!", "…", "x-y-z 3.5.6 e.g. don't", "Ünïcödé Wörter und Sätze. 東京の天気",
		strings.Repeat("word ", 300), "a.b.c.d.e", "---", "'quoted' \"words\" (in) [brackets]"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, text string, top int) {
		top = top % 30
		got := Keyphrases(text, top)
		if len(got) > max(top, 0) {
			t.Fatalf("%d phrases for top %d", len(got), top)
		}
		for _, p := range got {
			if n := len(strings.Fields(p)); n < 1 || n > 3 || p != strings.ToLower(p) {
				t.Fatalf("bad phrase %q", p)
			}
		}
		if again := Keyphrases(text, top); !slices.Equal(got, again) {
			t.Fatalf("not deterministic: %q vs %q", got, again)
		}
		exp := ExpandQuery(text, 4)
		if len(exp) == 0 || len(exp) > 4 || exp[0] != strings.TrimSpace(text) {
			t.Fatalf("ExpandQuery = %q", exp)
		}
	})
}
