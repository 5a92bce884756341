package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func recordedChecksums(t *testing.T, db *sql.DB) map[int]string {
	t.Helper()
	out := map[int]string{}
	rows, err := queryAll(context.Background(), db, func(r scanner) ([2]any, error) {
		var v int
		var sum string
		err := r.Scan(&v, &sum)
		return [2]any{v, sum}, err
	}, `SELECT version, checksum FROM schema_migrations`)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		out[r[0].(int)] = r[1].(string)
	}
	return out
}

// Every applied migration is recorded with the sha256 of its file.
func TestOpenRecordsMigrationChecksums(t *testing.T) {
	s := openTemp(t)
	ms, _ := loadMigrations()
	got := recordedChecksums(t, s.DB())
	if len(got) != len(ms) {
		t.Fatalf("%d checksums recorded, want %d", len(got), len(ms))
	}
	for _, m := range ms {
		if got[m.version] != checksum(m.sql) || len(got[m.version]) != 64 {
			t.Errorf("%s: recorded %q, want %q", m.name, got[m.version], checksum(m.sql))
		}
	}
}

// A migration whose applied SQL differs from this build's file is refused
// on open, with a typed error and a hint, and the file is left as it was.
func TestOpenRefusesChangedMigration(t *testing.T) {
	path := seedClosed(t, 1)
	db, _ := sql.Open("sqlite", DSN(path))
	if _, err := db.Exec(`UPDATE schema_migrations SET checksum = 'feedbeef' WHERE version = 3`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ce := assertRefused[*ChecksumError](t, path)
	if ce.Version != 3 || ce.Migration != "0003_corpus.sql" || ce.Recorded != "feedbeef" {
		t.Errorf("error = %+v", ce)
	}
	if !strings.Contains(ce.Error(), "different asky build") {
		t.Errorf("error = %v", ce)
	}
	if h := ce.Hint(); !strings.Contains(h, "mv "+path) || !strings.Contains(h, "left untouched") {
		t.Errorf("hint = %q", h)
	}
	if err := Classify(path, ce); err != ce {
		t.Errorf("Classify changed a ChecksumError: %v", err)
	}
}

// A database from before checksums were recorded adopts this build's
// checksums without error, and later opens check them.
func TestExistingDatabaseAdoptsChecksums(t *testing.T) {
	ms, _ := loadMigrations()
	var table int
	for _, m := range ms {
		if strings.Contains(m.sql, "CREATE TABLE schema_migrations") {
			table = m.version
		}
	}
	path := filepath.Join(t.TempDir(), "asky.db")
	db, _ := sql.Open("sqlite", DSN(path))
	for _, m := range ms[:table-1] {
		if _, err := db.Exec(m.sql); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`PRAGMA user_version = ` + strconv.Itoa(table-1) + `; PRAGMA application_id = ` + strconv.Itoa(applicationID)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for i := 0; i < 2; i++ { // migrate, then the current-schema path
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if got := recordedChecksums(t, s.DB()); len(got) != len(ms) || got[1] != checksum(ms[0].sql) {
			t.Fatalf("open %d: recorded %v", i, got)
		}
		s.Close()
	}
}

// A migration run refuses to apply new migrations on top of an applied one
// that changed, and applies nothing.
func TestMigrateChecksBeforeApplying(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	ms, _ := loadMigrations()
	latest := ms[len(ms)-1].version
	next := append(ms[:len(ms):len(ms)], migration{version: latest + 1, name: "9999_next.sql", sql: "CREATE TABLE next_one(x)"})
	if _, err := s.DB().Exec(`UPDATE schema_migrations SET checksum = 'feedbeef' WHERE version = 1`); err != nil {
		t.Fatal(err)
	}
	var ce *ChecksumError
	if err := s.migrate(ctx, next); !errors.As(err, &ce) || ce.Version != 1 {
		t.Fatalf("migrate = %v, want a ChecksumError for 1", err)
	}
	if got := pragmaInt(t, s.DB(), "user_version"); got != latest {
		t.Fatalf("user_version = %d after a refused migration", got)
	}
	// With the history intact the new migration applies and is recorded.
	if _, err := s.DB().Exec(`UPDATE schema_migrations SET checksum = ? WHERE version = 1`, checksum(ms[0].sql)); err != nil {
		t.Fatal(err)
	}
	if err := s.migrate(ctx, next); err != nil {
		t.Fatal(err)
	}
	if got := recordedChecksums(t, s.DB())[latest+1]; got != checksum("CREATE TABLE next_one(x)") {
		t.Fatalf("new migration recorded as %q", got)
	}
}

// Line endings do not change a checksum: a checkout with CRLF files builds
// the same ones.
func TestChecksumIgnoresCRLF(t *testing.T) {
	if checksum("CREATE TABLE a(x);\r\nCREATE TABLE b(y);\r\n") != checksum("CREATE TABLE a(x);\nCREATE TABLE b(y);\n") {
		t.Fatal("CRLF changes the checksum")
	}
	if checksum("a") == checksum("b") {
		t.Fatal("checksum ignores content")
	}
}
