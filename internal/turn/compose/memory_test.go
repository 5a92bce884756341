package compose

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/memory"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn"
)

// scriptedClient answers each call with the next scripted message and
// records the requests.
type scriptedClient struct {
	mu       sync.Mutex
	script   []llm.Message
	requests []llm.Request
}

func (c *scriptedClient) Chat(_ context.Context, req llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests = append(c.requests, req)
	m := llm.Message{Content: "# Answer\n\ndone"}
	if len(c.script) > 0 {
		m, c.script = c.script[0], c.script[1:]
	}
	m.Role = llm.RoleAssistant
	return &llm.Response{Message: m}, nil
}

type memoryFixture struct {
	st  *store.Store
	cfg *config.Config
	x   *composer
}

func newMemoryFixture(t *testing.T) *memoryFixture {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := config.Defaults()
	x := &composer{Core: &Core{Store: func() (*store.Store, error) { return st, nil }}, cfg: cfg, q: &Request{}}
	return &memoryFixture{st: st, cfg: cfg, x: x}
}

func (fx *memoryFixture) session(t *testing.T, name string) int64 {
	t.Helper()
	res, err := fx.st.DB().Exec(`INSERT INTO sessions(name, created_at, last_used_at) VALUES(?, 'x', 'x')`, name)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.LastInsertId()
	return id
}

func (fx *memoryFixture) save(t *testing.T, text string, session int64) {
	t.Helper()
	if _, err := memory.New(fx.st, fx.cfg.Memory, nil).Save(context.Background(), text, nil, session); err != nil {
		t.Fatal(err)
	}
}

// run composes a query like `asky` does (extensions, then the engine) and
// returns the result, the client and the events.
func (fx *memoryFixture) run(t *testing.T, query string, sessionID int64, script ...llm.Message) (*turn.Result, *scriptedClient, []turn.Event) {
	t.Helper()
	ctx := context.Background()
	client := &scriptedClient{script: script}
	req := &turn.Request{Query: query, Client: client, SessionID: sessionID}
	reg, err := buildTools(ctx, fx.x, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Tools = reg
	var events []turn.Event
	res, err := (&turn.Engine{Store: fx.st}).Run(ctx, *req, func(ev turn.Event) { events = append(events, ev) })
	if err != nil {
		t.Fatal(err)
	}
	return res, client, events
}

func eventText(evs []turn.Event, kind turn.EventKind) string {
	var b strings.Builder
	for _, e := range evs {
		if e.Kind == kind {
			b.WriteString(e.Text + "\n")
		}
	}
	return b.String()
}

// userText is the user message of the first model call.
func userText(c *scriptedClient) string {
	ms := c.requests[0].Messages
	return ms[len(ms)-1].Content
}

// Recalled memories are quoted data in the user message, never part of
// the system prompt, where a planted memory would read as instructions.
func TestMemoryRecallIntoUserMessageAsQuotedData(t *testing.T) {
	fx := newMemoryFixture(t)
	fx.save(t, "I live in Lisbon", 0)
	fx.save(t, "My favourite editor is Neovim", 0)
	_, c, evs := fx.run(t, "best weekend trips from Lisbon?", 0)
	user := userText(c)
	want := "best weekend trips from Lisbon?\n\n" + memory.RecallHeader + "\n> I live in Lisbon"
	if !strings.HasPrefix(user, want) {
		t.Fatalf("user message lacks the quoted memory:\n%s", user)
	}
	if sys := c.requests[0].Messages[0].Content; strings.Contains(sys, "Lisbon") || strings.Contains(sys, "User Memory") {
		t.Fatalf("a memory reached the system prompt:\n%s", sys)
	}
	if strings.Contains(user, "Neovim") {
		t.Errorf("an unrelated memory was recalled")
	}
	if got := eventText(evs, turn.EventDebug); !strings.Contains(got, `recalled 1 memory: #1 "I live in Lisbon"`) {
		t.Errorf("no -v notice naming the memory: %q", got)
	}

	// Nothing relevant: no section at all.
	_, c, evs = fx.run(t, "explain TCP slow start", 0)
	if user := userText(c); strings.Contains(user, memory.RecallHeader) {
		t.Errorf("memory section without a relevant memory:\n%s", user)
	}
	if got := eventText(evs, turn.EventDebug); strings.Contains(got, "recalled") {
		t.Errorf("recall notice without recall: %q", got)
	}
}

func TestMemorySessionScoping(t *testing.T) {
	fx := newMemoryFixture(t)
	trip, work := fx.session(t, "trip"), fx.session(t, "work")
	fx.save(t, "On this trip I travel by train", trip)
	fx.save(t, "At work I travel to Madrid monthly", work)

	_, c, _ := fx.run(t, "how do I travel?", trip)
	user := userText(c)
	if !strings.Contains(user, "On this trip I travel by train") || strings.Contains(user, "Madrid") {
		t.Errorf("session trip recalled the wrong memories:\n%s", user)
	}
	_, c, _ = fx.run(t, "how do I travel?", 0)
	if user := userText(c); strings.Contains(user, memory.RecallHeader) {
		t.Errorf("a one-shot turn recalled session memories:\n%s", user)
	}

	// save_memory in a session turn saves into that session.
	res, _, _ := fx.run(t, "I prefer window seats", trip,
		llm.Message{ToolCalls: []llm.ToolCall{{ID: "1", Name: "save_memory", Arguments: `{"memory":"Prefers window seats"}`}}})
	if len(res.ToolCalls) != 1 || !res.ToolCalls[0].OK {
		t.Fatalf("tool calls = %+v", res.ToolCalls)
	}
	ms, _ := fx.st.ListMemories(context.Background(), store.MemoryScope{SessionID: trip})
	if last := ms[len(ms)-1]; last.Text != "Prefers window seats" || last.SessionID != trip {
		t.Errorf("saved %+v, want a memory of session %d", last, trip)
	}
}

func TestMemoryGlobalTrigger(t *testing.T) {
	fx := newMemoryFixture(t)
	trip := fx.session(t, "trip")
	res, c, evs := fx.run(t, "  Remember GLOBALLY:  I live in Lisbon. What is on this weekend?", trip)
	user := userText(c)
	if q, _, _ := strings.Cut(user, "\n\n"); q != "I live in Lisbon. What is on this weekend?" {
		t.Errorf("model saw %q", user)
	}
	ms, _ := fx.st.ListMemories(context.Background(), store.MemoryScope{All: true})
	if len(ms) != 1 || ms[0].Text != "I live in Lisbon." || ms[0].SessionID != 0 {
		t.Fatalf("memories = %+v, want one global", ms)
	}
	if got := eventText(evs, turn.EventNotice); !strings.Contains(got, "remembered globally (memory 1): I live in Lisbon.") {
		t.Errorf("notice = %q", got)
	}
	// The fact saved before the call is already recalled into it.
	if !strings.Contains(user, "\n> I live in Lisbon.") {
		t.Errorf("saved fact not recalled:\n%s", user)
	}
	turnRow, err := fx.st.GetTurn(context.Background(), res.HistoryID)
	if err != nil || turnRow.Query != "I live in Lisbon. What is on this weekend?" {
		t.Errorf("history query = %q, %v", turnRow.Query, err)
	}

	// Unicode trigger from config; a restatement updates.
	fx.cfg.Memory.GlobalTriggers = []string{"ГЛОБАЛЬНО:"}
	_, _, evs = fx.run(t, "глобально: i live in lisbon", 0)
	if got := eventText(evs, turn.EventNotice); !strings.Contains(got, "updated globally (memory 1)") {
		t.Errorf("notice = %q", got)
	}
	if n, _ := fx.st.CountMemories(context.Background(), store.MemoryScope{All: true}); n != 1 {
		t.Errorf("%d memories after a restatement", n)
	}
	// Only a question: nothing saved, question still asked.
	_, c, evs = fx.run(t, "глобально: where do I live?", 0)
	if got := eventText(evs, turn.EventNotice); !strings.Contains(got, "only questions") {
		t.Errorf("notice = %q", got)
	}
	if q, _, _ := strings.Cut(userText(c), "\n\n"); q != "where do I live?" {
		t.Errorf("model saw %q", userText(c))
	}
}

func TestMemoryDisabled(t *testing.T) {
	fx := newMemoryFixture(t)
	fx.save(t, "I live in Lisbon", 0)
	fx.cfg.Memory.Enabled = false
	_, c, evs := fx.run(t, "remember globally: I live in Porto now. Weekend trips from Lisbon?", 0)
	req := c.requests[0]
	for _, tool := range req.Tools {
		if tool.Name == "save_memory" {
			t.Errorf("save_memory offered while memory is disabled")
		}
	}
	if strings.Contains(userText(c), memory.RecallHeader) {
		t.Errorf("recall while memory is disabled")
	}
	if got := req.Messages[len(req.Messages)-1].Content; got != "I live in Porto now. Weekend trips from Lisbon?" {
		t.Errorf("trigger not stripped: %q", got)
	}
	if !strings.Contains(eventText(evs, turn.EventNotice), "memory is disabled") {
		t.Errorf("no notice that nothing was remembered")
	}
	if n, _ := fx.st.CountMemories(context.Background(), store.MemoryScope{All: true}); n != 1 {
		t.Errorf("saved while disabled")
	}
}

func TestMemoryLeanSkipsEverything(t *testing.T) {
	fx := newMemoryFixture(t)
	fx.save(t, "I live in Lisbon", 0)
	client := &scriptedClient{}
	req := turn.Request{Query: "weekend trips from Lisbon", Client: client, Lean: true}
	// run() does not build tools in lean mode; even if preloaders were set
	// the engine skips them.
	if _, err := buildTools(context.Background(), fx.x, &req); err != nil {
		t.Fatal(err)
	}
	if _, err := (&turn.Engine{Store: fx.st}).Run(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(userText(client), memory.RecallHeader) {
		t.Errorf("lean turn recalled memories")
	}
}
