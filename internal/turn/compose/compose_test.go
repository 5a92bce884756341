package compose

import (
	"context"
	"errors"
	"testing"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/turn"
)

// fixedModel makes the core use client for every alias, with ctxSize.
func fixedModel(core *Core, client llm.Client, ctxSize int) {
	core.Model = func(context.Context, string) (*config.ResolvedModel, llm.Client, error) {
		return &config.ResolvedModel{Alias: "m", ID: "m", ContextSize: ctxSize}, client, nil
	}
}

func TestRunNamedSessionAcrossRequests(t *testing.T) {
	core, _ := testCore(t, t.TempDir())
	client := &scriptedClient{}
	fixedModel(core, client, 32000)
	ctx := context.Background()
	res, err := core.Run(ctx, Request{SessionName: "chat-1", Question: "first", Remote: true}, nil)
	if err != nil || res.SessionID == 0 || res.HistoryID == 0 {
		t.Fatalf("res %+v err %v", res, err)
	}
	res2, err := core.Run(ctx, Request{SessionName: "chat-1", Question: "second", Remote: true}, nil)
	if err != nil || res2.SessionID != res.SessionID {
		t.Fatalf("second turn in session %d, want %d (%v)", res2.SessionID, res.SessionID, err)
	}
	// The second request carries the first turn as session context.
	msgs := client.requests[1].Messages
	if len(msgs) < 4 || msgs[1].Content != "first" {
		t.Fatalf("session context not loaded: %+v", msgs)
	}
}

func TestRunUnknownToolIsUsageError(t *testing.T) {
	core, _ := testCore(t, t.TempDir())
	fixedModel(core, &scriptedClient{}, 32000)
	_, err := core.Run(context.Background(), Request{Question: "q", ToolOff: []string{"nope"}}, nil)
	var ue *UsageError
	if !errors.As(err, &ue) || ue.Hint() == "" {
		t.Fatalf("err %v", err)
	}
}

func TestRunLeanHasNoToolsAndEmitsEvents(t *testing.T) {
	core, _ := testCore(t, t.TempDir())
	client := &scriptedClient{}
	fixedModel(core, client, 32000)
	var kinds []turn.EventKind
	if _, err := core.Run(context.Background(), Request{Question: "2+2", Lean: true}, func(ev turn.Event) { kinds = append(kinds, ev.Kind) }); err != nil {
		t.Fatal(err)
	}
	if len(client.requests[0].Tools) != 0 || len(kinds) == 0 {
		t.Fatalf("tools %d events %d", len(client.requests[0].Tools), len(kinds))
	}
}
