package research

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/store"
)

// TestLexicalSearchPrunesCommonTerms checks the MaxScore path: on a corpus
// where "plain" is in 10% of the chunks and "pager" in 1.3%, the ranking
// equals the full OR query's, and it is proved without scoring the rows
// that hold only "plain"; when it cannot be proved it runs the full query.
func TestLexicalSearchPrunesCommonTerms(t *testing.T) {
	ctx := context.Background()
	st := lexCorpus(t, func(i int, b *strings.Builder) {
		if i%10 == 0 {
			b.WriteString(strings.Repeat("plain ", 1+i%4))
		}
		if i%75 == 0 {
			b.WriteString(strings.Repeat("pager ", 1+i%3))
		}
	})
	q := "how does the pager handle plain text"
	df, total, err := st.CorpusTermDocs(ctx, []string{"plain", "pager"})
	if err != nil || total != 3000 || df["plain"] != 300 || df["pager"] != 40 {
		t.Fatalf("%v %d %v", df, total, err)
	}
	// 35 is within the 40 "pager" rows but the 35th of them scores below
	// what "plain" alone can reach, so it is not proved.
	checkPruning(t, st, q, []int{10, 35}, func(pool int) bool { return pool == 10 })
}

// lexCorpus stores 3000 chunks of 20 filler words each, plus what add
// writes into chunk i.
func lexCorpus(t *testing.T, add func(i int, b *strings.Builder)) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	chunks := make([]store.CorpusChunk, 3000)
	for i := range chunks {
		var b strings.Builder
		for j := 0; j < 20; j++ {
			fmt.Fprintf(&b, "w%d ", (i*7+j*13)%500)
		}
		add(i, &b)
		chunks[i] = store.CorpusChunk{Index: i, Title: "T", Section: "S", Text: b.String()}
	}
	src := &store.CorpusSource{Path: "/x.md", Title: "X", Format: "md", SHA256: "h", Content: "c", Sections: "[]"}
	if _, err := st.ReplaceCorpusSource(context.Background(), src, chunks, "", nil); err != nil {
		t.Fatal(err)
	}
	return st
}

// checkPruning runs q on st at each pool size: the ranking must equal the
// full OR query's, and the MaxScore path must prove it exactly for the
// pools provable says.
func checkPruning(t *testing.T, st *store.Store, q string, pools []int, provable func(pool int) bool) {
	t.Helper()
	ctx := context.Background()
	ix := &Index{St: st}
	_, td, err := ix.weighQuery(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	match := lexicalMatch(q, td)
	for _, pool := range pools {
		full, err := st.SearchCorpusFTS(ctx, match, FieldWeights, nil, pool)
		if err != nil {
			t.Fatal(err)
		}
		// The proofs the small corpus would not try are tried (tightMin 0).
		_, pruned, err := ix.prunedSearch(ctx, match, td.df, td.total, nil, pool, 0)
		if err != nil {
			t.Fatal(err)
		}
		if pruned != provable(pool) {
			t.Errorf("pool %d: pruned = %v", pool, pruned)
		}
		got, err := ix.lexicalSearch(ctx, q, td, nil, pool)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(full) || !reflect.DeepEqual(ids(got), ids(full)) {
			t.Errorf("pool %d: got %v, want %v", pool, ids(got), ids(full))
		}
	}
}

func ids(hs []store.FTSHit) []int64 {
	out := make([]int64, len(hs))
	for i, h := range hs {
		out[i] = h.ChunkID
	}
	return out
}

// TestLexicalSearchTightSplit checks the first, tighter MaxScore split: a
// query of a 3% term and a 0.4% term has no term above the 5% split, so
// only the 1% split can prune, and its ranking must equal the full query's.
func TestLexicalSearchTightSplit(t *testing.T) {
	st := lexCorpus(t, func(i int, b *strings.Builder) {
		if i%33 == 0 {
			b.WriteString(strings.Repeat("journal ", 1+i%2))
		}
		if i%250 == 0 {
			b.WriteString(strings.Repeat("pager ", 4+i%3))
		}
	})
	df, _, err := st.CorpusTermDocs(context.Background(), []string{"journal", "pager"})
	if err != nil || df["journal"] != 91 || df["pager"] != 12 {
		t.Fatalf("%v %v", df, err)
	}
	// Up to 12 (the "pager" rows) the pool-th pager row outscores any row
	// with "journal" alone; 40 cannot be proved.
	checkPruning(t, st, "pager journal", []int{5, 10, 12, 40}, func(pool int) bool { return pool <= 12 })
	// Its 103 rows are too few to pay for a proof that may fail.
	if _, pruned, _ := (&Index{St: st}).prunedSearch(context.Background(), `"pager" OR "journal"`, df, 3000, nil, 10, tightMinRows); pruned {
		t.Error("the tight split was tried on a query matching 103 rows")
	}
}

// TestLexicalSearchIntersectionTier checks the third MaxScore step: with
// one rare term against two common ones the rare rows cannot beat both
// common bounds together, but rows holding both common terms are scored
// by their intersection, and a row with one of them scores at most its
// bound. The 5% split is the same split here, so only this step prunes.
func TestLexicalSearchIntersectionTier(t *testing.T) {
	st := lexCorpus(t, func(i int, b *strings.Builder) {
		if i%7 == 0 {
			b.WriteString("journal ")
		}
		if i%16 == 0 {
			b.WriteString("rollback ")
		}
		if i%200 == 0 {
			b.WriteString(strings.Repeat("pager ", 5))
		}
	})
	df, _, err := st.CorpusTermDocs(context.Background(), []string{"journal", "rollback", "pager"})
	if err != nil || df["journal"] != 429 || df["rollback"] != 188 || df["pager"] != 15 {
		t.Fatalf("%v %v", df, err)
	}
	checkPruning(t, st, "pager journal rollback", []int{5, 10, 30}, func(pool int) bool { return pool <= 10 })
}
