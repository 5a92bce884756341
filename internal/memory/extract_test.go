package memory

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/store"
)

type replyClient struct {
	reply string
	got   []llm.Request
}

func (c *replyClient) Chat(_ context.Context, req llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
	c.got = append(c.got, req)
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: c.reply}}, nil
}

func TestParseFacts(t *testing.T) {
	cases := map[string][]string{
		`["The user lives in Lisbon."]`:                         {"The user lives in Lisbon."},
		"```json\n[\"a\", \"a\", \"\", {\"fact\": \"b\"}]\n```": {"a", "b"},
		`Here you go: [] done`:                                  nil,
		`["1","2","3","4","5","6","7"]`:                         {"1", "2", "3", "4", "5"},
	}
	for in, want := range cases {
		got, err := ParseFacts(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	if _, err := ParseFacts("no facts"); err == nil {
		t.Error("no array: no error")
	}
}

func TestExtractSavesWithDedupIntoSession(t *testing.T) {
	st := openStore(t)
	sid := newSession(t, st, "s")
	svc := New(st, defaults, nil)
	c := &replyClient{reply: `["The user lives in Lisbon.", "The user is vegetarian."]`}
	got, err := svc.Extract(context.Background(), c, "m", "I live in Lisbon and I'm vegetarian, dinner ideas?", sid)
	if err != nil || len(got) != 2 || got[0].Result.Updated {
		t.Fatalf("first: %+v %v", got, err)
	}
	sys := c.got[0].Messages[0].Content
	if !strings.Contains(sys, "Do not extract") || !strings.Contains(sys, "JSON array") || c.got[0].Model != "m" {
		t.Errorf("prompt: %s", sys)
	}
	// The same facts again update instead of duplicating.
	got, err = svc.Extract(context.Background(), c, "m", "again", sid)
	if err != nil || len(got) != 2 || !got[0].Result.Updated {
		t.Fatalf("second: %+v %v", got, err)
	}
	ms, err := svc.Search(context.Background(), "Lisbon", store.MemoryScope{SessionID: sid}, 10)
	if err != nil || len(ms) != 1 || ms[0].Memory.SessionID != sid {
		t.Fatalf("stored: %+v %v", ms, err)
	}
	if _, err := svc.Extract(context.Background(), c, "m", "x", 0); err == nil {
		t.Error("no session: no error")
	}
}
