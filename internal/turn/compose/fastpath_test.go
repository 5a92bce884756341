package compose

import (
	"context"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn"
)

func TestMatchFastPath(t *testing.T) {
	hits := []struct{ q, kind, arg string }{
		{"call me Ana", "name", "Ana"},
		{"Call me Mary Jane.", "name", "Mary Jane"},
		{"my name is José-María", "name", "José-María"},
		{"  My name is O'Brien!  ", "name", "O'Brien"},
		{"remember that I live in Lisbon", "remember", "I live in Lisbon"},
		{"Remember my sister is called Eva.", "remember", "my sister is called Eva"},
		{"forget that I live in Lisbon", "forget", "I live in Lisbon"},
		{"forget Lisbon", "forget", "Lisbon"},
		{"what do you remember about me", "recall", ""},
		{"What do you know about me?", "recall", ""},
		{"REMEMBER\tthat tabs count as spaces", "remember", "tabs count as spaces"},
	}
	for _, h := range hits {
		fp, ok := matchFastPath(h.q)
		if !ok || fp.Kind != h.kind || fp.Arg != h.arg {
			t.Errorf("matchFastPath(%q) = %+v, %v; want %s %q", h.q, fp, ok, h.kind, h.arg)
		}
	}
	misses := []string{
		"",
		"can you call me a taxi",
		"call me later",
		"call me back tomorrow",
		"my name is not important",
		"what should I do if my name is misspelled on a ticket",
		"call me Ishmael is the first line of which novel?",
		"call me maybe",
		"my name is Ana and I need help with taxes in Portugal and Spain",
		"remember when we talked about Rust?",
		"remember to buy milk",
		"remember how to reverse a list in python",
		"do you remember that I live in Lisbon",
		"I remember that I live in Lisbon",
		"remember that Lisbon is nice?",
		"forget about it",
		"forget everything",
		"how do I forget a wifi network on macos",
		"forget how to reverse a list?",
		"what do you remember about me and my trip to Rome",
		"what do you remember about the meeting",
		"tell me what do you remember about me",
		"call me\nAna",
	}
	for _, q := range misses {
		if fp, ok := matchFastPath(q); ok {
			t.Errorf("matchFastPath(%q) = %+v; want no fast path", q, fp)
		}
	}
}

func TestFastPathsAnswerWithoutTheModel(t *testing.T) {
	core, _ := testCore(t, t.TempDir())
	client := &scriptedClient{}
	fixedModel(core, client, 32000)
	ctx := context.Background()
	var debug []string
	emit := func(ev turn.Event) {
		if ev.Kind == turn.EventDebug {
			debug = append(debug, ev.Text)
		}
	}
	ask := func(q string, confirm func(string) bool) *turn.Result {
		t.Helper()
		res, err := core.Run(ctx, Request{Question: q, SessionName: "me", Confirm: confirm}, emit)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		return res
	}
	if res := ask("call me Ana", nil); res.Answer != "OK, I'll call you Ana. (memory 1)" || res.Model != FastPathModel || res.HistoryID == 0 {
		t.Fatalf("name: %+v", res)
	}
	ask("remember that I live in Lisbon", nil)
	ask("remember that I live in Porto now", nil)
	res := ask("what do you remember about me", nil)
	for _, want := range []string{"call them Ana", "I live in Lisbon", "I live in Porto now"} {
		if !strings.Contains(res.Answer, want) {
			t.Fatalf("recall lacks %q:\n%s", want, res.Answer)
		}
	}
	// Two memories match "I live in": without a way to ask, none goes.
	if res := ask("forget I live in", nil); !strings.Contains(res.Answer, "2 memories match") {
		t.Fatalf("ambiguous forget: %s", res.Answer)
	}
	var asked string
	if res := ask("forget I live in", func(q string) bool { asked = q; return false }); !strings.HasPrefix(res.Answer, "Kept") || !strings.Contains(asked, "Forget 2 memories?") {
		t.Fatalf("declined forget: %s (asked %q)", res.Answer, asked)
	}
	if res := ask("forget I live in Lisbon", nil); !strings.HasPrefix(res.Answer, "Forgotten (1)") {
		t.Fatalf("forget: %s", res.Answer)
	}
	if len(client.requests) != 0 {
		t.Fatalf("a fast path called the model %d times", len(client.requests))
	}
	if len(debug) == 0 || !strings.Contains(debug[0], `"name" fast path`) {
		t.Fatalf("debug %q", debug)
	}
	st, _ := core.Store()
	turns, _ := st.ListTurns(ctx, 100)
	if len(turns) != 7 || turns[0].SessionID == 0 || turns[0].Model != FastPathModel {
		t.Fatalf("history: %d turns, newest %+v", len(turns), turns[0])
	}
	ms, _ := st.ListMemories(ctx, store.MemoryScope{})
	if len(ms) != 2 {
		t.Fatalf("memories left %d", len(ms))
	}
}

// Over chat, "forget …" deletes nothing: the remote policy refuses memory
// deletes, and the fast path is not a way around it.
func TestRemoteForgetDeletesNothing(t *testing.T) {
	core, _ := testCore(t, t.TempDir())
	fixedModel(core, &scriptedClient{}, 32000)
	ctx := context.Background()
	if _, err := core.Run(ctx, Request{Question: "remember that I live in Lisbon"}, nil); err != nil {
		t.Fatal(err)
	}
	res, err := core.Run(ctx, Request{Question: "forget Lisbon", Remote: true}, nil)
	if err != nil || !strings.Contains(res.Answer, "not available to remote questions") || !strings.Contains(res.Answer, "I live in Lisbon") {
		t.Fatalf("res %+v err %v", res, err)
	}
	st, _ := core.Store()
	if ms, _ := st.ListMemories(ctx, store.MemoryScope{}); len(ms) != 1 {
		t.Fatalf("a remote forget deleted: %d memories left", len(ms))
	}
}

// Earlier versions saved one memory per "call me …": the next name keeps
// one and drops the others, so recall cannot offer two names.
func TestNameFastPathKeepsOneName(t *testing.T) {
	core, _ := testCore(t, t.TempDir())
	fixedModel(core, &scriptedClient{}, 32000)
	ctx := context.Background()
	st, _ := core.Store()
	for _, n := range []string{"Bob", "Al"} {
		if _, err := st.SaveMemory(ctx, &store.Memory{Text: "The user's name is " + n + "; call them " + n + ".", Tags: []string{"name"}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := core.Run(ctx, Request{Question: "call me Cy"}, nil)
	if err != nil || !strings.Contains(res.Answer, "updated memory 1") {
		t.Fatalf("res %+v err %v", res, err)
	}
	ms, _ := st.ListMemories(ctx, store.MemoryScope{})
	if len(ms) != 1 || !strings.Contains(ms[0].Text, "call them Cy") {
		t.Fatalf("memories %+v", ms)
	}
}

func TestGlobalTriggerIsNotAFastPath(t *testing.T) {
	core, _ := testCore(t, t.TempDir())
	client := &scriptedClient{}
	fixedModel(core, client, 32000)
	res, err := core.Run(context.Background(), Request{Question: "remember globally: I live in Lisbon", Lean: true}, nil)
	if err != nil || res.Model == FastPathModel || len(client.requests) != 1 {
		t.Fatalf("res %+v err %v requests %d", res, err, len(client.requests))
	}
	st, _ := core.Store()
	if ms, _ := st.ListMemories(context.Background(), store.MemoryScope{}); len(ms) != 1 || ms[0].Text != "I live in Lisbon" {
		t.Fatalf("memories %+v", ms)
	}
}

func TestFastPathsOff(t *testing.T) {
	core, cfg := testCore(t, t.TempDir())
	cfg.General.FastPaths = false
	client := &scriptedClient{}
	fixedModel(core, client, 32000)
	if _, err := core.Run(context.Background(), Request{Question: "call me Ana", Lean: true}, nil); err != nil {
		t.Fatal(err)
	}
	if len(client.requests) != 1 {
		t.Fatalf("with fast_paths = false the model must answer: %d requests", len(client.requests))
	}
}
