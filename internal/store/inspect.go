package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// sqliteMagic opens every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// inspect decides, without writing a byte, whether path can be opened
// read-write. It returns current=true when the file is an asky database at
// the latest schema (no migration needed), false when it is missing, empty
// or an older asky schema, and an error (CorruptError, NewerSchemaError)
// when it must not be touched.
//
// The common case is answered from the 100-byte file header alone, so a
// cold `asky history list` pays no extra SQLite work. Anything unexpected
// goes to a read-only SQLite connection, which also sees changes still in
// the WAL, so the decision to refuse a file is always SQLite's, never a
// guess from a possibly stale header.
func inspect(ctx context.Context, path string, latest int) (current bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open database %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("open database %s: %w", path, err)
	}
	if st.IsDir() {
		return false, &CorruptError{Path: path, Err: errors.New("it is a directory")}
	}
	if st.Size() == 0 {
		// SQLite treats an empty file as a new database; the reliability
		// study (truncate to 0) showed migrations simply recreate the schema.
		return false, nil
	}
	var h [100]byte
	if _, err := io.ReadFull(f, h[:]); err == nil && headerCurrent(h[:], st.Size(), latest) {
		return true, nil
	}
	return false, inspectSQL(ctx, path, st.Size(), latest)
}

// slowCheckBytes is the database size from which the check before an
// upgrade is announced: it reads every page, about 25 s per GB here.
const slowCheckBytes = 256 << 20

type noticeKey struct{}

// WithNotice returns ctx carrying fn, which Open calls with a one-line
// note before slow one-time work (checking a big database before its
// schema is upgraded), so a user does not take the wait for a hang.
func WithNotice(ctx context.Context, fn func(string)) context.Context {
	return context.WithValue(ctx, noticeKey{}, fn)
}

// noteSlowCheck announces the page check of a database of size bytes
// when it will take a while.
func noteSlowCheck(ctx context.Context, size int64) {
	fn, _ := ctx.Value(noticeKey{}).(func(string))
	if fn == nil || size < slowCheckBytes {
		return
	}
	fn(fmt.Sprintf("checking the database (%.1f GB) before upgrading it to this version of asky; this runs once (about half a minute per GB)", float64(size)/(1<<30)))
}

// headerCurrent reports whether the raw header describes a complete asky
// database at schema latest. It only ever says yes when sure.
func headerCurrent(h []byte, size int64, latest int) bool {
	if string(h[:16]) != sqliteMagic {
		return false
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	validFor := binary.BigEndian.Uint32(h[92:96])
	changeCounter := binary.BigEndian.Uint32(h[24:28])
	if pageSize < 512 || pages == 0 || validFor != changeCounter || pages*pageSize > size {
		return false
	}
	return binary.BigEndian.Uint32(h[60:64]) == uint32(latest) &&
		binary.BigEndian.Uint32(h[68:72]) == applicationID
}

// inspectSQL examines path through a read-only connection without the
// write pragmas of DSN.
func inspectSQL(ctx context.Context, path string, size int64, latest int) error {
	// Without a -wal file the main file is the whole database, and
	// immutable=1 reads it without creating -wal/-shm next to a file we may
	// be about to refuse. With one (another asky is running, or crashed),
	// a read-only connection is needed to see the WAL's pages.
	dsn := "file:" + uriPath(path) + "?immutable=1"
	if _, err := os.Stat(path + "-wal"); err == nil {
		dsn = "file:" + uriPath(path) + "?mode=ro&_pragma=busy_timeout(10000)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return fmt.Errorf("open database %s: %w", path, err)
	}
	defer db.Close()
	var v, appID, tables int
	err = db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	if err == nil {
		err = db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID)
	}
	if err == nil {
		err = db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&tables)
	}
	if err != nil {
		return classify(path, err)
	}
	switch {
	case appID != applicationID && (v > 0 || tables > 0):
		return &CorruptError{Path: path, Foreign: true, Err: fmt.Errorf("it is another program's SQLite database (application_id %#x, %d schema objects)", appID, tables)}
	case v > latest:
		return &NewerSchemaError{Path: path, Have: v, Support: latest}
	}
	// The header was not what a healthy current database shows (older
	// schema, truncated file, stale header): verify the pages before a
	// migration writes on top of them.
	noteSlowCheck(ctx, size)
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check(5)")
	if err != nil {
		return classify(path, err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return classify(path, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return classify(path, err)
	}
	if len(problems) > 0 {
		return &CorruptError{Path: path, Err: fmt.Errorf("integrity check failed: %s", strings.Join(problems, "; "))}
	}
	return nil
}
