package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"
)

// ChecksumError means a migration this database has applied differs from
// the file of the same number in this build: the schema the build expects
// is not the one on disk (a development build edited or renumbered a
// migration after it ran). Nothing was applied; the file is as it was.
type ChecksumError struct {
	Path      string
	Migration string // this build's file name, e.g. 0003_corpus.sql
	Version   int
	// Recorded is the checksum stored when the migration ran, Embedded
	// the one of this build's file.
	Recorded, Embedded string
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("database %s was migrated by a different asky build: migration %d (%s) has checksum %.12s in the database, %.12s in this build",
		e.Path, e.Version, e.Migration, e.Recorded, e.Embedded)
}

// Hint tells the user how to continue without losing the file.
func (e *ChecksumError) Hint() string {
	p := shellQuote(e.Path)
	return fmt.Sprintf("it was left untouched; use the asky build that wrote it, or back it up and move it aside (mv %s %s.other) so asky creates a new one, or point ASKY_HOME elsewhere", p, p)
}

// checksum is the sha256 of a migration's SQL. CRLF is read as LF, so a
// checkout that converts line endings builds the same checksums.
func checksum(sql string) string {
	sum := sha256.Sum256([]byte(strings.ReplaceAll(sql, "\r\n", "\n")))
	return hex.EncodeToString(sum[:])
}

// execQuerier is what the checks need from a *sql.DB or a *sql.Tx.
type execQuerier interface {
	querier
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// checkChecksums compares the recorded checksums of migrations up to
// version upTo with this build's files and returns how many of those are
// recorded.
func (s *Store) checkChecksums(ctx context.Context, q execQuerier, ms []migration, upTo int) (recorded int, err error) {
	type row struct {
		version int
		sum     string
	}
	rows, err := queryAll(ctx, q, func(r scanner) (row, error) {
		var x row
		err := r.Scan(&x.version, &x.sum)
		return x, err
	}, `SELECT version, checksum FROM schema_migrations WHERE version <= ?`, upTo)
	if err != nil {
		return 0, err
	}
	have := map[int]string{}
	for _, x := range rows {
		have[x.version] = x.sum
	}
	for _, m := range ms {
		if sum, ok := have[m.version]; ok && m.version <= upTo && sum != checksum(m.sql) {
			return 0, &ChecksumError{Path: s.path, Migration: m.name, Version: m.version, Recorded: sum, Embedded: checksum(m.sql)}
		}
	}
	return len(have), nil
}

// recordChecksums stores the checksums of migrations up to upTo that are
// not recorded yet: the ones just applied, and on a database older than
// the table all earlier ones, which adopt this build's checksums.
func (s *Store) recordChecksums(ctx context.Context, q execQuerier, ms []migration, upTo int) error {
	for _, m := range ms {
		if m.version > upTo {
			break
		}
		if _, err := q.ExecContext(ctx, `INSERT OR IGNORE INTO schema_migrations(version, name, checksum, applied_at) VALUES (?, ?, ?, ?)`,
			m.version, m.name, checksum(m.sql), s.ts()); err != nil {
			return err
		}
	}
	return nil
}

// verifyCurrent checks a database already at this build's schema, on the
// open path that runs no migration. Missing rows (a database migrated
// while the table was being added) are adopted when the file is writable.
func (s *Store) verifyCurrent(ctx context.Context, ms []migration) error {
	latest := ms[len(ms)-1].version
	n, err := s.checkChecksums(ctx, s.db, ms, latest)
	if err != nil {
		return err
	}
	if n < latest {
		_ = s.recordChecksums(ctx, s.db, ms, latest)
	}
	return nil
}

// hasChecksumTable reports whether the database has schema_migrations yet
// (migration 0015_migration_checksums).
func hasChecksumTable(ctx context.Context, q execQuerier) (bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'`)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := rows.Next()
	return found, rows.Err()
}
