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
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	chunks := make([]store.CorpusChunk, 3000)
	for i := range chunks {
		var b strings.Builder
		for j := 0; j < 20; j++ {
			fmt.Fprintf(&b, "w%d ", (i*7+j*13)%500)
		}
		if i%10 == 0 {
			b.WriteString(strings.Repeat("plain ", 1+i%4))
		}
		if i%75 == 0 {
			b.WriteString(strings.Repeat("pager ", 1+i%3))
		}
		chunks[i] = store.CorpusChunk{Index: i, Title: "T", Section: "S", Text: b.String()}
	}
	src := &store.CorpusSource{Path: "/x.md", Title: "X", Format: "md", SHA256: "h", Content: "c", Sections: "[]"}
	if _, err := st.ReplaceCorpusSource(ctx, src, chunks, "", nil); err != nil {
		t.Fatal(err)
	}
	ix := &Index{St: st}
	q := "how does the pager handle plain text"
	_, td, err := ix.weighQuery(ctx, q)
	match, df, total := lexicalMatch(q, td), td.df, td.total
	if err != nil || total != 3000 || df["plain"] != 300 || df["pager"] != 40 {
		t.Fatalf("%s %v %d %v", match, df, total, err)
	}
	for _, pool := range []int{10, 35} {
		full, err := st.SearchCorpusFTS(ctx, match, FieldWeights, nil, pool)
		if err != nil {
			t.Fatal(err)
		}
		_, pruned, err := ix.prunedSearch(ctx, match, df, total, nil, pool)
		if err != nil {
			t.Fatal(err)
		}
		if pruned != (pool == 10) {
			// 35 is within the 40 "pager" rows but the 35th of them scores
			// below what "plain" alone can reach, so it is not proved.
			t.Errorf("pool %d: pruned = %v", pool, pruned)
		}
		got, err := ix.lexicalSearch(ctx, q, td, nil, pool)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != pool || !reflect.DeepEqual(ids(got), ids(full)) {
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
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	chunks := make([]store.CorpusChunk, 3000)
	for i := range chunks {
		var b strings.Builder
		for j := 0; j < 20; j++ {
			fmt.Fprintf(&b, "w%d ", (i*7+j*13)%500)
		}
		if i%33 == 0 {
			b.WriteString(strings.Repeat("journal ", 1+i%2))
		}
		if i%250 == 0 {
			b.WriteString(strings.Repeat("pager ", 4+i%3))
		}
		chunks[i] = store.CorpusChunk{Index: i, Title: "T", Section: "S", Text: b.String()}
	}
	src := &store.CorpusSource{Path: "/x.md", Title: "X", Format: "md", SHA256: "h", Content: "c", Sections: "[]"}
	if _, err := st.ReplaceCorpusSource(ctx, src, chunks, "", nil); err != nil {
		t.Fatal(err)
	}
	ix := &Index{St: st}
	q := "pager journal"
	_, td, err := ix.weighQuery(ctx, q)
	if err != nil || td.df["journal"] != 91 || td.df["pager"] != 12 {
		t.Fatalf("%v %v", td.df, err)
	}
	match := lexicalMatch(q, td)
	for _, pool := range []int{5, 10, 12, 40} {
		full, err := st.SearchCorpusFTS(ctx, match, FieldWeights, nil, pool)
		if err != nil {
			t.Fatal(err)
		}
		_, pruned, err := ix.prunedSearch(ctx, match, td.df, td.total, nil, pool)
		if err != nil {
			t.Fatal(err)
		}
		// Up to 12 (the "pager" rows) the pool-th pager row outscores
		// any row with "journal" alone; 40 cannot be proved.
		if pruned != (pool <= 12) {
			t.Errorf("pool %d: pruned = %v", pool, pruned)
		}
		got, err := ix.lexicalSearch(ctx, q, td, nil, pool)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ids(got), ids(full)) {
			t.Errorf("pool %d: got %v, want %v", pool, ids(got), ids(full))
		}
	}
}

// TestLexicalSearchIntersectionTier checks the third MaxScore step: with
// one rare term against two common ones the rare rows cannot beat both
// common bounds together, but rows holding both common terms are scored
// by their intersection, and a row with one of them scores at most its
// bound. The 5% split is the same split here, so only this step prunes.
func TestLexicalSearchIntersectionTier(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	chunks := make([]store.CorpusChunk, 3000)
	for i := range chunks {
		var b strings.Builder
		for j := 0; j < 20; j++ {
			fmt.Fprintf(&b, "w%d ", (i*7+j*13)%500)
		}
		if i%7 == 0 {
			b.WriteString("journal ")
		}
		if i%16 == 0 {
			b.WriteString("rollback ")
		}
		if i%200 == 0 {
			b.WriteString(strings.Repeat("pager ", 5))
		}
		chunks[i] = store.CorpusChunk{Index: i, Title: "T", Section: "S", Text: b.String()}
	}
	src := &store.CorpusSource{Path: "/x.md", Title: "X", Format: "md", SHA256: "h", Content: "c", Sections: "[]"}
	if _, err := st.ReplaceCorpusSource(ctx, src, chunks, "", nil); err != nil {
		t.Fatal(err)
	}
	ix := &Index{St: st}
	q := "pager journal rollback"
	_, td, err := ix.weighQuery(ctx, q)
	if err != nil || td.df["journal"] != 429 || td.df["rollback"] != 188 || td.df["pager"] != 15 {
		t.Fatalf("%v %v", td.df, err)
	}
	match := lexicalMatch(q, td)
	for _, pool := range []int{5, 10, 30} {
		full, err := st.SearchCorpusFTS(ctx, match, FieldWeights, nil, pool)
		if err != nil {
			t.Fatal(err)
		}
		_, pruned, err := ix.prunedSearch(ctx, match, td.df, td.total, nil, pool)
		if err != nil {
			t.Fatal(err)
		}
		if pruned != (pool <= 10) {
			t.Errorf("pool %d: pruned = %v", pool, pruned)
		}
		got, err := ix.lexicalSearch(ctx, q, td, nil, pool)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ids(got), ids(full)) {
			t.Errorf("pool %d: got %v, want %v", pool, ids(got), ids(full))
		}
	}
}
