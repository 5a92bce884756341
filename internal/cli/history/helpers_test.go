package history

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/store"
)

// testNow is the fixed clock of these tests.
var testNow = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return testNow }

// newStore opens a real database in a temp dir.
func newStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func storeFunc(st *store.Store) func() (*store.Store, error) {
	return func() (*store.Store, error) { return st, nil }
}

// save stores a turn created ago before testNow.
func save(t *testing.T, st *store.Store, ago time.Duration, tr store.Turn) int64 {
	t.Helper()
	tr.CreatedAt = testNow.Add(-ago)
	id, err := st.SaveTurn(context.Background(), &tr)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// exitCode reports the exit code cli.classify would give err.
func exitCode(err error) int {
	var ce *cmdutil.Error
	if errors.As(err, &ce) {
		return ce.Code
	}
	if err == nil {
		return 0
	}
	return 1
}
