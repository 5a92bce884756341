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
