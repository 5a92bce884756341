package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrateVectorBlocks builds a database just before the
// *_vector_blocks migration, with one vector row per chunk (two sources,
// chunk ids not in insertion order), and checks that the migration packs
// them into per-source blocks byte for byte, counts them, and bumps the
// generation.
func TestMigrateVectorBlocks(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "asky.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	// Every migration before the one that packs vectors (its number may
	// change when branches merge).
	before := 0
	for _, m := range ms {
		if strings.HasSuffix(m.name, "_vector_blocks.sql") {
			break
		}
		if _, err := db.ExecContext(ctx, m.sql); err != nil {
			t.Fatal(m.name, err)
		}
		before = m.version
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(q, err)
		}
	}
	exec(fmt.Sprintf("PRAGMA user_version = %d; PRAGMA application_id = %d", before, applicationID))
	vec := func(id int64, fp string) []float32 {
		v := make([]float32, 3)
		for i := range v {
			v[i] = float32(id)*10 + float32(i) + float32(len(fp))/100
		}
		v[0] = -0 // a zero byte pattern must survive the concatenation
		return v
	}
	for s := int64(1); s <= 2; s++ {
		exec(`INSERT INTO corpus_sources (id, path, title, format, sha256, size, content, created_at, updated_at) VALUES (?, ?, 't', 'md', 'x', 1, '', '', '')`, s, fmt.Sprintf("/%d.md", s))
	}
	// Source 1 owns chunks 5, 2 and 300; source 2 owns 7. Space "b" covers only source 1.
	for _, c := range [][2]int64{{5, 1}, {2, 1}, {300, 1}, {7, 2}} {
		exec(`INSERT INTO corpus_chunks (id, source_id, idx, text) VALUES (?, ?, ?, 'x')`, c[0], c[1], c[0])
		exec(`INSERT INTO corpus_vectors (chunk_id, fingerprint, vec) VALUES (?, 'a', ?)`, c[0], EncodeVector(vec(c[0], "a")))
	}
	db.Close()
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ids, flat, err := st.CorpusVectors(ctx, "a", 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{2, 5, 300, 7}
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Fatalf("ids %v, want %v", ids, want)
	}
	for i, id := range want {
		if fmt.Sprint(flat[3*i:3*i+3]) != fmt.Sprint(vec(id, "a")) {
			t.Fatalf("vector of %d = %v, want %v", id, flat[3*i:3*i+3], vec(id, "a"))
		}
	}
	f, err := st.CorpusFacts(ctx, "a")
	if err != nil || f.Chunks != 4 || f.Vectors != 4 || f.Generation != 1 {
		t.Fatalf("facts %+v %v", f, err)
	}
	var blocks int
	if err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM corpus_vector_blocks`).Scan(&blocks); err != nil || blocks != 2 {
		t.Fatalf("%d blocks, %v", blocks, err)
	}
}

// TestVectorCountsFollowWrites checks the maintained counts through
// insert, replace, per-source vectors, space drop and delete, against
// count(*) each time.
func TestVectorCountsFollowWrites(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	doc := func(path string, n int, withVecs bool) SourceWrite {
		w := SourceWrite{Src: &CorpusSource{Path: path, Title: path, Format: "md", SHA256: "x", Sections: "[]"}}
		for i := 0; i < n; i++ {
			w.Chunks = append(w.Chunks, CorpusChunk{Index: i, Text: fmt.Sprint("chunk ", i)})
			if withVecs {
				w.Vecs = append(w.Vecs, []float32{float32(i), 1})
			}
		}
		return w
	}
	check := func(step string, chunks, vecs int) {
		t.Helper()
		f, err := st.CorpusFacts(ctx, "fp")
		if err != nil {
			t.Fatal(err)
		}
		var c, v int
		st.db.QueryRowContext(ctx, `SELECT count(*) FROM corpus_chunks`).Scan(&c)
		ids, _, _ := st.CorpusVectors(ctx, "fp", 2, nil)
		v = len(ids)
		if f.Chunks != chunks || f.Vectors != vecs || c != chunks || v != vecs {
			t.Fatalf("%s: facts %+v, counted %d chunks %d vectors; want %d and %d", step, f, c, v, chunks, vecs)
		}
	}
	// A source bigger than one block is split over several rows.
	if _, err := st.ReplaceCorpusSources(ctx, []SourceWrite{doc("/a", vectorBlockRows(2)+5, true), doc("/b", 3, false)}, "fp"); err != nil {
		t.Fatal(err)
	}
	check("insert", vectorBlockRows(2)+8, vectorBlockRows(2)+5)
	if _, err := st.ReplaceCorpusSources(ctx, []SourceWrite{doc("/a", 2, true)}, "fp"); err != nil {
		t.Fatal(err)
	}
	check("replace", 5, 2)
	missing, err := st.SourcesMissingVectors(ctx, "fp", 10)
	if err != nil || len(missing) != 1 {
		t.Fatalf("missing %v %v", missing, err)
	}
	chunks, _ := st.SourceChunks(ctx, missing[0])
	cids := []int64{chunks[0].ID, chunks[1].ID, chunks[2].ID}
	if err := st.PutSourceVectors(ctx, "fp", missing[0], cids, [][]float32{{1, 0}, {0, 1}, {1, 1}}); err != nil {
		t.Fatal(err)
	}
	check("put", 5, 5)
	// Dropping nothing leaves the generation (a kept space's snapshot
	// stays current); dropping some moves it by one and says how many.
	gen, _ := st.CorpusGeneration(ctx)
	if dropped, err := st.DropOtherSpacesCounted(ctx, "fp", "other"); err != nil || len(dropped) != 0 {
		t.Fatalf("dropped %v, %v", dropped, err)
	}
	if g, _ := st.CorpusGeneration(ctx); g != gen {
		t.Fatalf("a drop of nothing moved the generation %d → %d", gen, g)
	}
	dropped, err := st.DropOtherSpacesCounted(ctx, "other")
	if err != nil || len(dropped) != 1 || dropped["fp"] != 5 {
		t.Fatalf("dropped %v, %v; want fp: 5", dropped, err)
	}
	if g, _ := st.CorpusGeneration(ctx); g != gen+1 {
		t.Fatalf("generation %d → %d, want one step", gen, g)
	}
	check("drop", 5, 0)
	if _, err := st.ReplaceCorpusSources(ctx, []SourceWrite{doc("/a", 2, true)}, "fp"); err != nil {
		t.Fatal(err)
	}
	a, _ := st.CorpusSourceByPath(ctx, "/a")
	if err := st.DeleteCorpusSource(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	check("delete", 3, 0)
}

// TestVectorStorageNearRaw checks that 512-d vectors take at most 1.2×
// their raw bytes in the database file (a row per vector took ~2×).
func TestVectorStorageNearRaw(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "asky.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const dim, per, docs = 512, 100, 20
	for d := 0; d < docs; d++ {
		w := SourceWrite{Src: &CorpusSource{Path: fmt.Sprint("/", d), Title: "t", Format: "md", SHA256: "x", Sections: "[]"}}
		for i := 0; i < per; i++ {
			w.Chunks = append(w.Chunks, CorpusChunk{Index: i, Text: "x"})
			w.Vecs = append(w.Vecs, make([]float32, dim))
		}
		if _, err := st.ReplaceCorpusSources(ctx, []SourceWrite{w}, "fp"); err != nil {
			t.Fatal(err)
		}
	}
	got, raw, err := st.VectorStorage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if raw != docs*per*dim*4 {
		t.Fatalf("raw %d bytes, want %d", raw, docs*per*dim*4)
	}
	t.Logf("vectors take %.3f× their raw bytes", float64(got)/float64(raw))
	if float64(got) > 1.2*float64(raw) {
		t.Fatalf("vectors take %d bytes for %d raw (%.2f×)", got, raw, float64(got)/float64(raw))
	}
}
