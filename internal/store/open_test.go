package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func pragmaInt(t *testing.T, db *sql.DB, name string) int {
	t.Helper()
	var v int
	if err := db.QueryRow("PRAGMA " + name).Scan(&v); err != nil {
		t.Fatalf("PRAGMA %s: %v", name, err)
	}
	return v
}

func TestOpenFreshMigratesAndReopenIsNoop(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "asky.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := pragmaInt(t, s.DB(), "user_version"); got != LatestVersion() {
		t.Fatalf("user_version = %d, want %d", got, LatestVersion())
	}
	for _, f := range []string{path, path + "-wal"} {
		if st, err := os.Stat(f); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s: mode %v, %v; want 0600 (history is private)", f, st.Mode(), err)
		}
	}
	if got := pragmaInt(t, s.DB(), "application_id"); got != applicationID {
		t.Fatalf("application_id = %#x", got)
	}
	if _, err := s.SaveTurn(ctx, &Turn{Query: "q", Answer: "a"}); err != nil {
		t.Fatal(err)
	}
	var schema1 string
	if err := s.DB().QueryRow(`SELECT group_concat(sql, ';') FROM sqlite_schema WHERE name NOT LIKE 'sqlite_stat%'`).Scan(&schema1); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// After a clean close the header is checkpointed: reopening takes the
	// header fast path and must neither migrate nor change anything.
	var h [100]byte
	f, _ := os.Open(path)
	_, _ = f.Read(h[:])
	f.Close()
	st, _ := os.Stat(path)
	if !headerCurrent(h[:], st.Size(), LatestVersion()) {
		t.Fatal("header of a closed current database is not recognised as current")
	}
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var schema2 string
	if err := s.DB().QueryRow(`SELECT group_concat(sql, ';') FROM sqlite_schema WHERE name NOT LIKE 'sqlite_stat%'`).Scan(&schema2); err != nil {
		t.Fatal(err)
	}
	if schema1 != schema2 {
		t.Fatalf("schema changed on reopen")
	}
	if n, _ := s.CountTurns(ctx); n != 1 {
		t.Fatalf("turns = %d, want 1", n)
	}
	if res, err := s.IntegrityCheck(ctx); err != nil || res != "ok" {
		t.Fatalf("quick_check = %q, %v", res, err)
	}
}

// TestOpenUnmigratedAskyFile covers an asky-stamped file at user_version 0
// with no tables (a first run killed before its migration committed): the
// schema is applied and earlier content is irrelevant.
func TestOpenUnmigratedAskyFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "asky.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA application_id = " + strconv.Itoa(applicationID)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := pragmaInt(t, s.DB(), "user_version"); got != LatestVersion() {
		t.Fatalf("user_version = %d", got)
	}
	if _, err := s.SaveTurn(ctx, &Turn{Query: "q"}); err != nil {
		t.Fatalf("save after migration: %v", err)
	}
}

// assertRefused opens path, expects an error of type E, and checks that not one byte of the file changed and no WAL or
// journal appeared.
func assertRefused[E error](t *testing.T, path string) E {
	t.Helper()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path)
	if err == nil {
		s.Close()
		t.Fatalf("Open(%s) succeeded, want %T", path, *new(E))
	}
	var target E
	if !errors.As(err, &target) {
		t.Fatalf("Open error = %T %v, want %T", err, err, target)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file", err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatalf("%s was modified by Open", path)
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(path + suffix); err == nil {
			t.Errorf("%s%s was created next to the refused file", path, suffix)
		}
	}
	return target
}

func TestOpenRefusesGarbage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "asky.db")
	garbage := bytes.Repeat([]byte("this is not a database, just text.\n"), 300)
	if err := os.WriteFile(path, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	ce := assertRefused[*CorruptError](t, path)
	if !strings.Contains(ce.Hint(), "mv "+path) {
		t.Errorf("hint %q does not say how to move the file aside", ce.Hint())
	}
}

func TestOpenRefusesShortGarbage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "asky.db")
	if err := os.WriteFile(path, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	assertRefused[*CorruptError](t, path)
}

// seedClosed creates a current asky database with n turns and closes it.
func seedClosed(t *testing.T, n int) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "asky.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := s.SaveTurn(ctx, &Turn{Query: "question", Answer: strings.Repeat("answer text ", 200), Messages: []Message{{Role: "user", Content: "question"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOpenRefusesTruncated(t *testing.T) {
	for _, keep := range []int64{100, 4096 + 17, -1} {
		path := seedClosed(t, 200)
		st, _ := os.Stat(path)
		size := keep
		if keep < 0 {
			size = st.Size() / 2
		}
		if err := os.Truncate(path, size); err != nil {
			t.Fatal(err)
		}
		assertRefused[*CorruptError](t, path)
	}
}

func TestOpenRefusesForeignSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "asky.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE photos(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO photos(name) VALUES ('cat.jpg')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ce := assertRefused[*CorruptError](t, path)
	if !ce.Foreign {
		t.Errorf("foreign database not flagged Foreign: %v", ce)
	}

	// Another application's id with no tables (and user_version set) is
	// just as foreign.
	path2 := filepath.Join(t.TempDir(), "asky.db")
	db, _ = sql.Open("sqlite", "file:"+path2)
	if _, err := db.Exec(`PRAGMA application_id = 1234; PRAGMA user_version = 1; CREATE TABLE x(a)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	assertRefused[*CorruptError](t, path2)
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := seedAtVersion(t, 9999)
	ne := assertRefused[*NewerSchemaError](t, path)
	if ne.Have != 9999 || ne.Support != LatestVersion() {
		t.Fatalf("NewerSchemaError = %+v", ne)
	}
}

func TestOpenZeroLengthFileGetsFreshSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "asky.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open zero-length: %v", err)
	}
	defer s.Close()
	if _, err := s.SaveTurn(context.Background(), &Turn{Query: "q"}); err != nil {
		t.Fatal(err)
	}
}

func TestOpenDirectoryIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "asky.db")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path)
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want CorruptError", err)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/home/u/.local/share/asky/asky.db": "/home/u/.local/share/asky/asky.db",
		"/tmp/my dir/asky.db":               "'/tmp/my dir/asky.db'",
		"/tmp/it's/asky.db":                 `'/tmp/it'\''s/asky.db'`,
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCorruptPageFoundByQuery damages a page in the middle of a database
// whose header is intact: Open's header fast path lets it through, and the
// first query that reads the page must report a CorruptError naming the
// file, without the file being changed.
func TestCorruptPageFoundByQuery(t *testing.T) {
	path := seedClosed(t, 300)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pageSize := int(b[16])<<8 | int(b[17])
	for p := 3; p < len(b)/pageSize-1; p++ {
		copy(b[p*pageSize:(p+1)*pageSize], bytes.Repeat([]byte{0xa5}, pageSize))
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err == nil {
		_, err = s.ListHistory(ctx, 1000)
		if err == nil {
			_, err = s.GetTurn(ctx, 150)
		}
		s.Close()
	}
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Path != path {
		t.Fatalf("err = %T %v, want CorruptError for %s", err, err, path)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, b) {
		t.Fatal("the damaged file was modified")
	}
}

// TestMigratedHeaderIsCheckpointed keeps the first store open (as a daemon
// would) and checks the main file's header already says "current asky
// database", so a second process takes the header fast path.
func TestMigratedHeaderIsCheckpointed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "asky.db")
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, err := os.ReadFile(path)
	if err != nil || len(b) < 100 {
		t.Fatalf("read header: %v (%d bytes)", err, len(b))
	}
	if !headerCurrent(b[:100], int64(len(b)), LatestVersion()) {
		t.Fatal("main file header is stale while the migrating process is still running")
	}
}

// schemaOf returns the schema objects of db, sorted, without SQLite's
// internal statistics tables.
func schemaOf(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query(`SELECT type || ' ' || name || ': ' || COALESCE(sql, '') FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n")
}

// TestUpgradeFromEveryEarlierVersion builds a database at each earlier
// schema version (migrations up to it, stamped as asky), stores a turn, and
// opens it with this binary: the pending migrations run, the turn survives
// and the schema is exactly a fresh database's.
func TestUpgradeFromEveryEarlierVersion(t *testing.T) {
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	fresh := openTemp(t)
	want := schemaOf(t, fresh.DB())
	for i, m := range ms[:len(ms)-1] {
		t.Run(m.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "asky.db")
			db, err := sql.Open("sqlite", DSN(path))
			if err != nil {
				t.Fatal(err)
			}
			for _, old := range ms[:i+1] {
				if _, err := db.Exec(old.sql); err != nil {
					t.Fatalf("%s: %v", old.name, err)
				}
			}
			if _, err := db.Exec(`PRAGMA user_version = ` + strconv.Itoa(m.version) + `; PRAGMA application_id = ` + strconv.Itoa(applicationID) + `;
				INSERT INTO turns(created_at, query, answer) VALUES ('2026-01-01T00:00:00Z', 'old question', 'old answer')`); err != nil {
				t.Fatal(err)
			}
			db.Close()
			s, err := Open(context.Background(), path)
			if err != nil {
				t.Fatalf("upgrade from v%d: %v", m.version, err)
			}
			defer s.Close()
			if got := pragmaInt(t, s.DB(), "user_version"); got != LatestVersion() {
				t.Fatalf("user_version = %d", got)
			}
			tr, err := s.GetTurn(context.Background(), 1)
			if err != nil || tr.Query != "old question" {
				t.Fatalf("old turn after upgrade: %+v, %v", tr, err)
			}
			if got := schemaOf(t, s.DB()); got != want {
				t.Fatalf("schema after upgrade from v%d differs from a fresh one:\n%s\nwant:\n%s", m.version, got, want)
			}
		})
	}
}

// TestMigrationNumbersAreContiguous keeps schema versions dense: a new
// migration takes the next number, so a database at version N has applied
// exactly migrations 1..N.
func TestMigrationNumbersAreContiguous(t *testing.T) {
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		if m.version != i+1 {
			t.Fatalf("migration %s has number %d, want %d (numbers must be 1..N without gaps)", m.name, m.version, i+1)
		}
	}
}

// A path with URI characters opens that very file: "#" and "?" must not cut
// it short (the database would land in a parent-level file shared by
// anything with the same prefix), and "%" must not be decoded.
func TestOpenPathWithURICharacters(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "my#notes?x=1%41")
	path := filepath.Join(dir, "asky.db")
	for i := 0; i < 2; i++ { // the second open takes the inspect path
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		s.Close()
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at %s: %v", path, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		if e.Name() != filepath.Base(dir) {
			t.Errorf("stray file %s next to the home", e.Name())
		}
	}
}

// A database whose migration history does not match this build (a
// development build numbered its migrations differently and already made
// the tables) is refused with the file, the migration and a hint, and left
// as it was.
func TestOpenRefusesMismatchedMigrationHistory(t *testing.T) {
	path := seedAtVersion(t, 9)
	me := assertRefused[*MigrationError](t, path)
	if me.Migration != "0010_usage.sql" || !strings.Contains(me.Error(), "different asky build") || !strings.Contains(me.Error(), "already exists") {
		t.Errorf("error = %v", me)
	}
	if h := me.Hint(); !strings.Contains(h, "mv "+path) || !strings.Contains(h, "ASKY_HOME") {
		t.Errorf("hint = %q", h)
	}
}

// seedAtVersion is a closed database whose user_version says v.
func seedAtVersion(t *testing.T, v int) string {
	t.Helper()
	path := seedClosed(t, 1)
	db, _ := sql.Open("sqlite", "file:"+path)
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
		t.Fatal(err)
	}
	return path
}
