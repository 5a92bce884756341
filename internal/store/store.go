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

// CorruptError reports a file that is not a usable asky database:
// garbage, a truncated or damaged file, or another program's SQLite file.
// asky never modifies or deletes such a file; the user decides.
type CorruptError struct {
	Path string
	// Foreign is set when the file is a healthy SQLite database that
	// belongs to something else.
	Foreign bool
	Err     error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s is not a usable asky database: %v", e.Path, e.Err)
}
func (e *CorruptError) Unwrap() error { return e.Err }

// Hint tells the user how to recover. The file is left as it is.
func (e *CorruptError) Hint() string {
	p := shellQuote(e.Path)
	if e.Foreign {
		return fmt.Sprintf("it was left untouched; move it elsewhere (mv %s %s.other) and asky will create a new database", p, p)
	}
	return fmt.Sprintf("it was left untouched; move it aside (mv %s %s.bad) and asky will create a new one; `sqlite3 %s.bad .recover` may salvage old turns", p, p, p)
}

// NewerSchemaError means a newer asky wrote this database; this binary
// refuses to touch it rather than guess at columns it does not know.
type NewerSchemaError struct {
	Path          string
	Have, Support int
}

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("database %s has schema v%d, newer than this asky supports (v%d)", e.Path, e.Have, e.Support)
}

// Hint tells the user how to proceed.
func (e *NewerSchemaError) Hint() string {
	return "install a newer asky; the database was left untouched"
}

// MigrationError means a migration of this build failed on the database:
// its history does not match this build's (typically a development build
// numbered its migrations differently and already created the tables).
// The migration ran in a transaction that was rolled back, so the file is
// as it was.
type MigrationError struct {
	Path      string
	Migration string // file name, e.g. 0010_usage.sql
	From      int    // the database's schema version
	Err       error
}

func (e *MigrationError) Error() string {
	return fmt.Sprintf("database %s (schema v%d) was written by a different asky build: migration %s failed: %v", e.Path, e.From, e.Migration, e.Err)
}
func (e *MigrationError) Unwrap() error { return e.Err }

// Hint tells the user how to continue without losing the file.
func (e *MigrationError) Hint() string {
	p := shellQuote(e.Path)
	return fmt.Sprintf("it was left untouched; back it up and move it aside (mv %s %s.other) so asky creates a new one, or point ASKY_HOME elsewhere, or use the asky build that wrote it", p, p)
}

// DiskError reports a write that the disk or the file system refused
// (full, quota, I/O error, read-only, cannot open). The transaction was
// rolled back, so nothing was half-written.
type DiskError struct {
	Path string
	Err  error
	// Full is set for SQLITE_FULL: the disk or quota is full.
	Full bool
}

func (e *DiskError) Error() string {
	return fmt.Sprintf("database %s: %v", e.Path, e.Err)
}
func (e *DiskError) Unwrap() error { return e.Err }

// Hint tells the user what to check.
func (e *DiskError) Hint() string {
	dir := shellQuote(filepath.Dir(e.Path))
	if e.Full {
		return fmt.Sprintf("free some disk space (df -h %s) and retry; nothing was half-written", dir)
	}
	return fmt.Sprintf("check that %s is writable and its disk has space (ls -ld %s; df -h %s), or point ASKY_HOME elsewhere; nothing was half-written", dir, dir, dir)
}

// SchemaError means the database's tables do not match its schema version
// (a table or column is missing): it was damaged or edited by hand.
type SchemaError struct {
	Path string
	Err  error
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("database %s has a damaged schema: %v", e.Path, e.Err)
}
func (e *SchemaError) Unwrap() error { return e.Err }

// Hint tells the user how to recover without losing the file.
func (e *SchemaError) Hint() string {
	p := shellQuote(e.Path)
	return fmt.Sprintf("move it aside (mv %s %s.bad) and asky will create a new one; `sqlite3 %s.bad .recover` may salvage old turns", p, p, p)
}

// shellQuote quotes p for a copy-pasteable hint when it needs quoting.
func shellQuote(p string) string {
	if p != "" && strings.IndexFunc(p, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '~' || r == '+' || r == ',' || r == ':' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// uriPath escapes path for a "file:" URI, where "?" starts the parameters,
// "#" a fragment and "%" an escape: unescaped, a home such as
// ~/my#notes would open (and create) ~/my instead.
func uriPath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

// DSN builds the connection string: every pragma lives in the DSN so each
// pooled connection gets it, and _txlock=immediate makes write transactions
// take the lock up front (deferred upgrades fail with SQLITE_BUSY without
// consulting busy_timeout).
func DSN(path string) string {
	return "file:" + uriPath(path) + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate"
}

// Open opens (creating if needed) the database at path and migrates it.
// A file that is not an asky database (garbage, truncated, another
// program's SQLite file, a newer schema) is refused before anything is
// written to it: the connection pragmas (journal_mode=WAL) would otherwise
// rewrite its header.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	// History holds everything the user asked: create the file private
	// before SQLite does (it would use 0644, and its -wal and -shm files
	// copy the database's mode). A zero-length file is a fresh database.
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	}
	ms, err := loadMigrations()
	if err != nil {
		return nil, err
	}
	latest := ms[len(ms)-1].version
	current, err := inspect(ctx, path, latest)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", DSN(path))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	s := &Store{db: db, path: path, now: time.Now}
	if current {
		err = s.verifyCurrent(ctx, ms)
	} else {
		err = s.migrateRetrying(ctx, ms)
	}
	if err != nil {
		db.Close()
		return nil, classify(path, err)
	}
	s.reapQuietly(ctx)
	return s, nil
}

// migrateRetrying runs migrate, retrying for a few seconds while another
// process holds the database: when several shells start on a fresh file at
// once, switching it to WAL can fail with SQLITE_BUSY without SQLite's busy
// handler being consulted.
func (s *Store) migrateRetrying(ctx context.Context, ms []migration) error {
	deadline := time.Now().Add(10 * time.Second)
	for attempt := 0; ; attempt++ {
		err := s.migrate(ctx, ms)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(20+10*min(attempt, 10)) * time.Millisecond):
		}
	}
}

func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
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

// classify maps SQLite's corruption and disk codes to typed errors that
// name the file and carry a hint.
func classify(path string, err error) error {
	if me := (*MigrationError)(nil); errors.As(err, &me) {
		return err
	}
	if ce := (*ChecksumError)(nil); errors.As(err, &ce) {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return &CorruptError{Path: path, Err: err}
		case sqlite3.SQLITE_FULL:
			return &DiskError{Path: path, Err: err, Full: true}
		case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM:
			return &DiskError{Path: path, Err: err}
		case sqlite3.SQLITE_ERROR:
			if m := se.Error(); strings.Contains(m, "no such table") || strings.Contains(m, "no such column") || strings.Contains(m, "has no column named") {
				return &SchemaError{Path: path, Err: err}
			}
		}
	}
	return err
}

// CheckSchema verifies, without writing, that the tables a turn is saved
// to have the columns this version writes: a damaged schema is then
// reported before a model is paid for an answer that cannot be saved.
// Only schema problems are returned; the disk is checked by the write.
func (s *Store) CheckSchema(ctx context.Context) error {
	for _, q := range []string{insertTurnSQL, beginTurnSQL, insertMessageSQL, insertCallSQL} {
		st, err := s.db.PrepareContext(ctx, q)
		if err != nil {
			var se *SchemaError
			if err = s.wrap(err); errors.As(err, &se) {
				return err
			}
			continue
		}
		st.Close()
	}
	return nil
}

// Classify gives a raw SQLite error that reached the caller without a
// file name (unable to open database file (14), disk I/O error (4874))
// the database's path and a hint; typed store errors, and errors that did
// not come from SQLite, are returned as they are.
func Classify(path string, err error) error {
	var ce *CorruptError
	var de *DiskError
	var sce *SchemaError
	var me *MigrationError
	var cke *ChecksumError
	if err == nil || errors.As(err, &ce) || errors.As(err, &de) || errors.As(err, &sce) || errors.As(err, &me) || errors.As(err, &cke) {
		return err
	}
	return classify(path, err)
}

// IsSQLite reports whether err carries an error from SQLite itself.
func IsSQLite(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se)
}

// wrap classifies errors from queries on an open store.
func (s *Store) wrap(err error) error {
	if err == nil {
		return nil
	}
	return classify(s.path, err)
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
// concurrent first runs from several shells apply each exactly once: the
// version is re-read under the write lock.
func (s *Store) migrate(ctx context.Context, ms []migration) error {
	latest := ms[len(ms)-1].version
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	if v > latest {
		return &NewerSchemaError{Path: s.path, Have: v, Support: latest}
	}
	hasTable, err := hasChecksumTable(ctx, tx)
	if err != nil {
		return err
	}
	if hasTable {
		// Refuse before applying anything on top of a history this build
		// does not share.
		if _, err := s.checkChecksums(ctx, tx, ms, v); err != nil {
			return err
		}
	}
	if v == latest {
		return nil
	}
	for _, m := range ms {
		if m.version <= v {
			continue
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			var se *sqlite.Error
			if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_ERROR {
				// A statement the schema refused (table already exists, no
				// such column): not the disk, not a lock.
				return &MigrationError{Path: s.path, Migration: m.name, From: v, Err: err}
			}
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	if err := s.recordChecksums(ctx, tx, ms, latest); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", latest)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// Copy the new header into the main file now, so other processes take
	// inspect's header fast path instead of the slower read-only check
	// while a long-running process (the daemon) keeps the WAL alive.
	_, _ = s.db.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
	return nil
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
