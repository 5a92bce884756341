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
