package research

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/store"
)

func TestBuildMatch(t *testing.T) {
	tests := []struct{ in, want string }{
		{"how does the pager roll back", `"pager" OR "roll" OR "back"`},
		{"what's new?", `"new"`},
		{"go-readability", `"go" OR "readability"`},
		{`"unbalanced`, `"unbalanced"`},
		{"AND", `"and"`},
		{"foo:bar", `"foo" OR "bar"`},
		{"near(x y)", `"near" OR "x" OR "y"`},
		{"100%", `"100"`},
		{"C++ vs Rust", `"c" OR "vs" OR "rust"`},
		{"ver1.1", `"ver1" OR "1"`},
		{"the of and", `"the" OR "of" OR "and"`},
		{"!!! ???", ``},
		{"Café café CAFÉ", `"café"`},
	}
	for _, tt := range tests {
		if got := BuildMatch(tt.in); got != tt.want {
			t.Errorf("BuildMatch(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	long := strings.Repeat("alpha beta gamma delta ", 50) + strings.Repeat("x", 10)
	for i := 0; i < 40; i++ {
		long += " w" + itoa(i)
	}
	if n := strings.Count(BuildMatch(long), " OR ") + 1; n > maxMatchTerms {
		t.Fatalf("%d terms", n)
	}
}

// ftsStore is a real SQLite store with one chunk, shared by the FTS tests.
func ftsStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	src := &store.CorpusSource{Path: "/x.md", Title: "X", Format: "md", SHA256: "h", Content: "c", Sections: "[]"}
	if _, err := st.ReplaceCorpusSource(context.Background(), src, []store.CorpusChunk{{Text: "the pager rolls back a transaction; café AND near"}}, "", nil); err != nil {
		t.Fatal(err)
	}
	return st
}

func FuzzBuildMatch(f *testing.F) {
	for _, s := range []string{"what's new?", "go-readability", "C++ vs Rust", `"unbalanced`, "AND", "foo:bar", "near(x y)", "100%", "ver1.1", "NOT", "*", "^x", "a OR", "\x00", "col:*"} {
		f.Add(s)
	}
	st := ftsStore(f)
	f.Fuzz(func(t *testing.T, q string) {
		m := BuildMatch(q)
		// Whatever the user typed, the MATCH expression must be valid.
		if _, err := st.SearchCorpusFTS(context.Background(), m, FieldWeights, nil, 5); err != nil {
			t.Fatalf("BuildMatch(%q) = %s: %v", q, m, err)
		}
	})
}

func TestBuildMatchWithoutCommonTerms(t *testing.T) {
	q := "how does the pager roll back the journal"
	if got := QueryTerms(q); strings.Join(got, ",") != "pager,roll,back,journal" {
		t.Fatalf("terms %v", got)
	}
	if got := BuildMatchWithout(q, map[string]bool{"back": true, "roll": true}); got != `"pager" OR "journal"` {
		t.Fatalf("got %s", got)
	}
	// Never drops every term.
	if got := BuildMatchWithout("pager journal", map[string]bool{"pager": true, "journal": true}); got != `"pager" OR "journal"` {
		t.Fatalf("got %s", got)
	}
}

func TestCorpusTermDocs(t *testing.T) {
	st := ftsStore(t)
	// The vocabulary holds terms as indexed (diacritics removed), so
	// "café" is only found as "cafe"; missing a term only means keeping it.
	df, total, err := st.CorpusTermDocs(context.Background(), []string{"pager", "cafe", "absent"})
	if err != nil || total != 1 || df["pager"] != 1 || df["cafe"] != 1 || df["absent"] != 0 {
		t.Fatalf("%v %d %v", df, total, err)
	}
}

func TestJaccardOfTokenSets(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"", "", 1},
		{"the pager rolls back", "The Pager rolls BACK, the pager", 1},
		{"a b c d", "a b c e", 3.0 / 5},
		{"x y", "z", 0},
		{"café crème", "Café Crème", 1},
	} {
		if got := jaccard(tokenSet(c.a), tokenSet(c.b)); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("jaccard(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
