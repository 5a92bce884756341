package compose

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/tools"
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

// A research run: a relative name resolves under local_document_roots,
// summarize_section is offered although the model is resolved after the
// tools, and a run without a session gets its own research session.
func TestRunResearchPointerUnderRootsAndSession(t *testing.T) {
	home, lib := t.TempDir(), t.TempDir()
	docs := filepath.Join(lib, "papers")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(docs, "pager.md"), []byte("# Pager\n\n## Rollback\n\nThe pager rolls back the journal when a transaction fails.\n"), 0o644)
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("[research]\nlocal_document_roots = [\""+lib+"\"]\n"), 0o600)
	core, _ := testCore(t, home)
	client := &scriptedClient{}
	fixedModel(core, client, 32000)
	var notices []string
	res, err := core.Run(context.Background(), Request{Question: "papers how does rollback work", ResearchSet: true}, func(ev turn.Event) {
		if ev.Kind == turn.EventNotice {
			notices = append(notices, ev.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	req := client.requests[0]
	user := req.Messages[len(req.Messages)-1].Content
	if !strings.HasPrefix(user, "how does rollback work") || !strings.Contains(user, "rolls back the journal") {
		t.Fatalf("user message:\n%s", user)
	}
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, tools.ToolSummarizeSection) {
		t.Errorf("summarize_section not offered: %v", names)
	}
	st, _ := core.Store()
	s, err := st.GetSession(context.Background(), res.SessionID)
	if err != nil || !strings.HasPrefix(s.Name, "research-") || s.Defaults.Research == nil || *s.Defaults.Research != "papers" {
		t.Fatalf("research session: %+v %v", s, err)
	}
	if !strings.Contains(strings.Join(notices, "\n"), "Started research session "+s.Name) {
		t.Errorf("notices %q", notices)
	}
	// A second one-shot research run gets a separate session.
	res2, err := core.Run(context.Background(), Request{Question: "papers what is a journal", ResearchSet: true}, nil)
	if err != nil || res2.SessionID == res.SessionID {
		t.Fatalf("second research run shares session %d (%v)", res2.SessionID, err)
	}
}
