package turn

// Saving a turn: the question before the first model call (so a kill
// leaves it in history), the whole turn at the end, and the error types
// that say an answer could not be saved.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/store"
)

// turnBeginner is a Store that can save the question before the turn runs.
type turnBeginner interface {
	BeginTurn(ctx context.Context, t *store.Turn) (int64, error)
}

// begin saves the question as a pending turn before any model call, so a
// kill -9 or a lost terminal leaves it in history. A failure here is not
// fatal: the final save reports it, after the answer is shown.
func (r *run) begin(ctx context.Context) {
	b, ok := r.e.Store.(turnBeginner)
	if !ok {
		return
	}
	t := &store.Turn{SessionID: r.req.SessionID, CreatedAt: r.start, Query: r.req.Query, Input: r.req.Input, Model: r.res.Model}
	if _, err := b.BeginTurn(ctx, t); err != nil {
		r.emit(Event{Kind: EventDebug, Text: "could not save the question before asking: " + err.Error()})
		return
	}
	r.turnID = t.ID
}

// turnFailer is a Store that can mark a pending turn as failed.
type turnFailer interface {
	FailTurn(ctx context.Context, id int64, msg string) error
}

// schemaChecker is a Store that can verify its schema before a turn.
type schemaChecker interface {
	CheckSchema(ctx context.Context) error
}

// SaveError means the turn ran to the end but could not be saved: the
// Result returned with it is complete, and its answer should still reach
// the user (it was paid for).
type SaveError struct{ Err error }

func (e *SaveError) Error() string {
	msg := e.Err.Error()
	if !strings.HasPrefix(msg, "save turn") {
		msg = "save turn: " + msg
	}
	return msg + " (the answer above was not saved to history)"
}

func (e *SaveError) Unwrap() error { return e.Err }

// persist stores the turn. It uses a context detached from cancellation so
// an interrupted turn is still recorded (as interrupted, never as a normal
// answer).
func (r *run) persist(ctx context.Context, runErr error) error {
	if r.e.Store == nil {
		return nil
	}
	t := &store.Turn{
		ID: r.turnID, SessionID: r.req.SessionID, CreatedAt: r.start, Query: r.req.Query, Input: r.req.Input, Answer: r.res.Answer,
		ElapsedMS: r.res.Elapsed.Milliseconds(), Messages: r.stored, Calls: r.calls, Status: store.StatusComplete,
	}
	if r.req.Model != nil {
		t.Model = r.req.Model.Alias
	}
	for _, s := range r.res.Sources {
		t.Sources = append(t.Sources, store.Source{URL: s.URL, Title: s.Title})
	}
	if runErr != nil {
		t.Status, t.Error = store.StatusError, runErr.Error()
		if errors.Is(runErr, context.Canceled) {
			t.Status, t.Error = store.StatusInterrupted, "interrupted"
		}
		if t.Answer == "" {
			t.Answer = r.partial.String()
		}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	id, err := r.e.Store.SaveTurn(sctx, t)
	if err != nil {
		if f, ok := r.e.Store.(turnFailer); ok && r.turnID != 0 {
			_ = f.FailTurn(sctx, r.turnID, "the answer could not be saved: "+err.Error())
		}
		return err
	}
	r.res.HistoryID = id
	return nil
}

func storeMessage(m llm.Message) store.Message {
	sm := store.Message{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name}
	if len(m.ToolCalls) > 0 {
		b, _ := json.Marshal(m.ToolCalls)
		sm.ToolCalls = string(b)
	}
	return sm
}
