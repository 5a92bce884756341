package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestExtractorVersionMigration opens a database made before extractor
// versions were kept: its documents read as version 0 (so the next
// ingest re-reads them once), and a write stores the version it is given.
func TestExtractorVersionMigration(t *testing.T) {
	ctx := context.Background()
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	at := -1
	for i, m := range ms {
		if strings.HasSuffix(m.name, "_extractor_version.sql") {
			at = i
		}
	}
	if at < 1 {
		t.Fatal("no extractor_version migration")
	}
	path := filepath.Join(t.TempDir(), "asky.db")
	db, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:at] {
		if _, err := db.Exec(m.sql); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
	}
	if _, err := db.Exec(`PRAGMA user_version = ` + strconv.Itoa(ms[at-1].version) + `; PRAGMA application_id = ` + strconv.Itoa(applicationID) + `;
		INSERT INTO corpus_sources (path, title, format, sha256, size, content, created_at, updated_at)
		VALUES ('/docs/old.pdf', 'Old', 'pdf', 'abc', 3, 'old text', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old, err := s.CorpusSourceByPath(ctx, "/docs/old.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if old.ExtractorVersion != 0 || old.SHA256 != "abc" {
		t.Fatalf("a document from before the migration reads as %+v, want version 0", old)
	}
	src := &CorpusSource{Path: "/docs/old.pdf", Title: "Old", Format: "pdf", SHA256: "abc", Size: 3, Content: "new text", ExtractorVersion: 2}
	if _, err := s.ReplaceCorpusSource(ctx, src, []CorpusChunk{{Index: 0, Text: "new text"}}, "fp", nil); err != nil {
		t.Fatal(err)
	}
	src.Path, src.ExtractorVersion = "/docs/new.md", 5
	if _, err := s.ReplaceCorpusSource(ctx, src, []CorpusChunk{{Index: 0, Text: "new text"}}, "fp", nil); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{"/docs/old.pdf": 2, "/docs/new.md": 5} {
		got, err := s.CorpusSourceByPath(ctx, path)
		if err != nil || got.ExtractorVersion != want {
			t.Fatalf("%s: %+v, %v; want version %d", path, got, err, want)
		}
	}
	list, err := s.ListCorpusSources(ctx)
	if err != nil || len(list) != 2 || list[1].ExtractorVersion != 2 {
		t.Fatalf("listed %+v, %v", list, err)
	}
}
