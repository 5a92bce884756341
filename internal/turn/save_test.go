package turn_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/llm/llmtest"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn"
)

// failingStore refuses every save the way a full disk does.
type failingStore struct{}

func (failingStore) SaveTurn(context.Context, *store.Turn) (int64, error) {
	return 0, errors.New("save turn: writing /data/asky.db failed: database or disk is full (13)")
}

// A turn that cannot be saved still returns its complete answer, with a
// SaveError that says "save turn" once.
func TestUnsavableTurnKeepsTheAnswer(t *testing.T) {
	f := newFixture(t, "openai")
	f.eng.Store = failingStore{}
	f.srv.Enqueue(llmtest.Response{Text: "# Answer\n\nParis"})
	res, err := f.run(t, context.Background(), f.request("capital of france"))
	var se *turn.SaveError
	if !errors.As(err, &se) {
		t.Fatalf("err = %T %v, want SaveError", err, err)
	}
	if res == nil || res.Answer != "# Answer\n\nParis" {
		t.Fatalf("answer lost: %+v", res)
	}
	if n := strings.Count(err.Error(), "save turn"); n != 1 || !strings.Contains(err.Error(), "/data/asky.db") {
		t.Fatalf("error %q", err)
	}
}

type damagedStore struct{ failingStore }

func (damagedStore) CheckSchema(context.Context) error {
	return &store.SchemaError{Path: "/data/asky.db", Err: errors.New("no such table: turns")}
}

func TestDamagedSchemaStopsBeforeTheModel(t *testing.T) {
	f := newFixture(t, "openai")
	f.eng.Store = damagedStore{}
	_, err := f.run(t, context.Background(), f.request("capital of france"))
	var se *store.SchemaError
	if !errors.As(err, &se) || len(f.srv.Requests()) != 0 {
		t.Fatalf("err = %v, model calls %d", err, len(f.srv.Requests()))
	}
}

// fullDisk is a real store whose final save fails (as when the answer and
// its messages no longer fit), though the question was saved before.
type fullDisk struct{ *store.Store }

func (fullDisk) SaveTurn(context.Context, *store.Turn) (int64, error) {
	return 0, errors.New("database /data/asky.db: database or disk is full (13)")
}

func TestUnsavableTurnLeavesAnErrorRowNotPending(t *testing.T) {
	f := newFixture(t, "openai")
	f.eng.Store = fullDisk{f.st}
	f.srv.Enqueue(llmtest.Response{Text: "# Answer\n\nParis"})
	if _, err := f.run(t, context.Background(), f.request("capital of france")); err == nil {
		t.Fatal("no error")
	}
	turns, err := f.st.ListTurns(context.Background(), 5)
	if err != nil || len(turns) != 1 || turns[0].Status != store.StatusError || !strings.Contains(turns[0].Error, "could not be saved") ||
		turns[0].Query != "capital of france" {
		t.Fatalf("turns %+v %v", turns, err)
	}
}
