package store

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// A database whose tables no longer match its schema version (edited by
// hand, half-restored) is reported by CheckSchema, without writing,
// naming the file, so a turn is refused before its model is paid for.
func TestCheckSchemaFindsDamage(t *testing.T) {
	ctx := context.Background()
	for name, damage := range map[string]string{
		"dropped table":  "DROP TABLE llm_calls",
		"missing column": "ALTER TABLE turns DROP COLUMN input",
		"renamed table":  "ALTER TABLE messages RENAME TO messages_old",
	} {
		t.Run(name, func(t *testing.T) {
			s := openTest(t)
			if err := s.CheckSchema(ctx); err != nil {
				t.Fatalf("healthy database: %v", err)
			}
			if _, err := s.db.Exec(damage); err != nil {
				t.Fatal(err)
			}
			err := s.CheckSchema(ctx)
			var se *SchemaError
			if !errors.As(err, &se) || se.Path != s.path || !strings.Contains(err.Error(), s.path) || !strings.Contains(se.Hint(), "mv ") {
				t.Fatalf("CheckSchema = %T %v", err, err)
			}
			if _, err := s.SaveTurn(ctx, &Turn{Query: "q", Messages: []Message{{Role: "user"}}, Calls: []LLMCall{{}}}); !errors.As(err, &se) {
				t.Fatalf("SaveTurn = %T %v, want SchemaError", err, err)
			}
		})
	}
}

// A raw SQLite error a caller passed on (without the store naming the
// file) gets the path and a hint; typed errors are left alone.
func TestClassifyNamesTheDatabase(t *testing.T) {
	s := openTest(t)
	_, raw := s.db.Exec("SELECT * FROM no_such_table")
	if !IsSQLite(raw) {
		t.Fatalf("%T is not seen as a SQLite error", raw)
	}
	err := Classify("/data/asky.db", raw)
	var se *SchemaError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "/data/asky.db") {
		t.Fatalf("Classify = %T %v", err, err)
	}
	if again := Classify("/other.db", err); again != err {
		t.Fatalf("a typed error was rewrapped: %v", again)
	}
	if IsSQLite(errors.New("plain")) {
		t.Fatal("a plain error seen as SQLite's")
	}
}
