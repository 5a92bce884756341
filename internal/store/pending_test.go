package store

import (
	"context"
	"testing"
)

// BeginTurn saves the question before the model is asked; SaveTurn then
// completes that same row (one history entry, never two).
func TestBeginTurnThenSaveCompletesTheSameRow(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	tr := &Turn{Query: "what is WAL?", Model: "fake"}
	id, err := s.BeginTurn(ctx, tr)
	if err != nil || id == 0 {
		t.Fatal(id, err)
	}
	got, err := s.GetTurn(ctx, id)
	if err != nil || got.Status != StatusPending || got.Query != "what is WAL?" {
		t.Fatalf("pending row %+v %v", got, err)
	}
	tr.Answer, tr.Status = "# WAL\n\nwrite-ahead log", StatusComplete
	tr.Messages = []Message{{Role: "user", Content: "what is WAL?"}, {Role: "assistant", Content: "…"}}
	if id2, err := s.SaveTurn(ctx, tr); err != nil || id2 != id {
		t.Fatalf("SaveTurn = %d %v, want the pending row %d", id2, err, id)
	}
	if n, _ := s.CountTurns(ctx); n != 1 {
		t.Fatalf("%d turns, want 1", n)
	}
	got, _ = s.GetTurn(ctx, id)
	if got.Status != StatusComplete || got.Answer != tr.Answer || len(got.Messages) != 2 {
		t.Fatalf("completed row %+v", got)
	}
	// A pending row deleted meanwhile (history delete): the save still lands.
	tr2 := &Turn{Query: "second"}
	id3, _ := s.BeginTurn(ctx, tr2)
	if _, err := s.db.Exec(`DELETE FROM turns WHERE id = ?`, id3); err != nil {
		t.Fatal(err)
	}
	tr2.Answer = "a"
	id4, err := s.SaveTurn(ctx, tr2)
	if err != nil {
		t.Fatalf("save after the row was deleted: %v", err)
	}
	if got, err := s.GetTurn(ctx, id4); err != nil || got.Answer != "a" || got.Status != StatusComplete {
		t.Fatalf("saved %+v %v", got, err)
	}
}
