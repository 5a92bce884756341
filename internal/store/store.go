// Package store is the only owner of SQL in asky: one SQLite file (asky.db)
// holding history, sessions, memory, the research cache, chunks, FTS5 and
// vectors. Queries are hand-written; the schema is small and migrations are
// numbered .sql files embedded below and tracked with PRAGMA user_version.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// applicationID marks asky databases ("asky" in ASCII) so a foreign SQLite
// file is recognised and never migrated.
const applicationID = 0x61736b79

// Store wraps the database handles.
type Store struct {
	db   *sql.DB
	path string
	now  func() time.Time
}

// CorruptError reports a file that is not a usable asky database. The file
// is never modified.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("database %s is not a valid asky database: %v", e.Path, e.Err)
}
func (e *CorruptError) Unwrap() error { return e.Err }

// Hint tells the user how to recover.
func (e *CorruptError) Hint() string {
	return fmt.Sprintf("move it aside (mv %s %s.bad) and asky will create a new one; `sqlite3 %s .recover` may salvage data", e.Path, e.Path, e.Path)
}

// NewerSchemaError means a newer asky wrote this database.
type NewerSchemaError struct {
	Path          string
	Have, Support int
}

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("database %s has schema v%d, newer than this asky supports (v%d); upgrade asky", e.Path, e.Have, e.Support)
}

// DSN builds the connection string: every pragma lives in the DSN so each
// pooled connection gets it, and _txlock=immediate makes write transactions
// take the lock up front (deferred upgrades fail with SQLITE_BUSY without
// consulting busy_timeout).
func DSN(path string) string {
	return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate"
}

// Open opens (creating if needed) the database at path and migrates it.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	db, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	s := &Store{db: db, path: path, now: time.Now}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, classify(path, err)
	}
	return s, nil
}

// Close closes the database, running PRAGMA optimize first.
func (s *Store) Close() error {
	_, _ = s.db.Exec("PRAGMA optimize")
	return s.db.Close()
}

// DB exposes the handle to packages' tests; production code uses methods.
func (s *Store) DB() *sql.DB { return s.db }

// Path is the database file.
func (s *Store) Path() string { return s.path }

// SetNow replaces the clock (tests).
func (s *Store) SetNow(now func() time.Time) { s.now = now }

func (s *Store) ts() string { return s.now().UTC().Format(time.RFC3339Nano) }

// classify maps SQLite's corruption codes to a CorruptError.
func classify(path string, err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return &CorruptError{Path: path, Err: err}
		}
	}
	return err
}

type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		if !ok {
			continue
		}
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %s: bad number", e.Name())
		}
		b, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// LatestVersion is the schema version this binary writes.
func LatestVersion() int {
	ms, _ := loadMigrations()
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// migrate applies pending migrations inside one immediate transaction, so
// concurrent first runs from several shells apply each exactly once.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	latest := ms[len(ms)-1].version
	var v, appID int
	// Fast path without a write lock: already current.
	if err := s.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if err := s.db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return err
	}
	if v > 0 && appID != applicationID {
		return &CorruptError{Path: s.path, Err: fmt.Errorf("application_id %#x is not asky's", appID)}
	}
	if v == latest {
		return nil
	}
	if v > latest {
		return &NewerSchemaError{Path: s.path, Have: v, Support: latest}
	}
	if v == 0 {
		var n int
		if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
			return err
		}
		if n > 0 && appID != applicationID {
			return &CorruptError{Path: s.path, Err: errors.New("it holds tables that are not asky's")}
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	for _, m := range ms {
		if m.version <= v {
			continue
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", latest)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return err
	}
	return tx.Commit()
}

// IntegrityCheck runs PRAGMA quick_check and returns its findings ("ok").
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	rows, err := s.db.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", err
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n"), rows.Err()
}
