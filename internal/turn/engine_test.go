package turn_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/llm/llmtest"
	"github.com/askygo/asky/internal/llm/provider"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
)

// fixedNow is the frozen clock; the system prompt must show it.
var fixedNow = time.Date(2026, 11, 22, 3, 4, 0, 0, time.UTC)

const fixedDate = "Sunday, November 22, 2026 at 03:04"

type fixture struct {
	eng    *turn.Engine
	st     *store.Store
	srv    *llmtest.Server
	model  *config.ResolvedModel
	client llm.Client
	search *recordingTool
	events []turn.Event
	mu     sync.Mutex
}

func newFixture(t *testing.T, protocol string) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := llmtest.New()
	t.Cleanup(srv.Close)
	m := &config.ResolvedModel{Alias: "fake", ID: "fake-model", APIName: "fake", Type: protocol, BaseURL: srv.URL(),
		ContextSize: 8000, PriceIn: 1, PriceOut: 2}
	c, err := provider.New(m, &http.Client{}, provider.Options{MaxRetries: -1, IdleTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{eng: &turn.Engine{Store: st, Now: func() time.Time { return fixedNow }}, st: st, srv: srv, model: m,
		client: c, search: &recordingTool{}}
}

func (f *fixture) request(q string) turn.Request {
	return turn.Request{Query: q, Model: f.model, Client: f.client, Tools: tools.NewRegistry(f.search.tool())}
}

func (f *fixture) run(t *testing.T, ctx context.Context, req turn.Request) (*turn.Result, error) {
	t.Helper()
	return f.eng.Run(ctx, req, func(e turn.Event) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.events = append(f.events, e)
	})
}

func (f *fixture) text(kind turn.EventKind) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	for _, e := range f.events {
		if e.Kind == kind {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

func (f *fixture) saved(t *testing.T, id int64) *store.Turn {
	t.Helper()
	st, err := f.st.GetTurn(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func roles(ms []store.Message) string {
	var rs []string
	for _, m := range ms {
		rs = append(rs, m.Role)
	}
	return strings.Join(rs, ",")
}

// recordingTool is a fake web_search that records its arguments.
type recordingTool struct {
	mu   sync.Mutex
	args []string
}

func (r *recordingTool) tool() *tools.Tool {
	return &tools.Tool{
		Name: "web_search", Description: "Search the web. Returns results.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`),
		Run: func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
			var a struct{ Query string }
			if err := json.Unmarshal(args, &a); err != nil {
				return tools.Result{}, err
			}
			r.mu.Lock()
			r.args = append(r.args, a.Query)
			r.mu.Unlock()
			if a.Query == "fail" {
				return tools.Result{}, errors.New("search provider returned 500")
			}
			u := "https://example.com/" + a.Query
			return tools.Result{Content: "result for " + a.Query + " at " + u, Sources: []tools.Source{{URL: u, Title: a.Query}}}, nil
		},
	}
}

func TestStreamedText(t *testing.T) {
	for _, protocol := range []string{"openai", "anthropic"} {
		t.Run(protocol, func(t *testing.T) {
			f := newFixture(t, protocol)
			answer := "# Capital of France\n\nThe capital is **Paris**."
			f.srv.Enqueue(llmtest.Response{Text: answer, Pieces: 6, Usage: &llm.Usage{PromptTokens: 100, CompletionTokens: 20}})
			req := f.request("what is the capital of france")
			req.MaxTurns = 7
			res, err := f.run(t, context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer != answer || f.text(turn.EventText) != answer {
				t.Errorf("answer %q, streamed %q", res.Answer, f.text(turn.EventText))
			}
			if res.Usage != (llm.Usage{PromptTokens: 100, CompletionTokens: 20}) || res.Calls != 1 || res.Model != "fake" {
				t.Errorf("usage %+v calls %d model %q", res.Usage, res.Calls, res.Model)
			}
			sys := f.srv.Requests()[0].System()
			for _, want := range []string{fixedDate, "Always start the final answer with a single H1", "at most 7 tool-using turns", "`web_search`: Search the web."} {
				if !strings.Contains(sys, want) {
					t.Errorf("system prompt lacks %q:\n%s", want, sys)
				}
			}
			if strings.Contains(sys, "{{") {
				t.Errorf("unsubstituted template in system prompt:\n%s", sys)
			}
			if got := f.srv.Requests()[0].ToolNames(); len(got) != 1 || got[0] != "web_search" {
				t.Errorf("tools offered %v", got)
			}
			st := f.saved(t, res.HistoryID)
			if st.Status != store.StatusComplete || st.Answer != answer || st.Query != "what is the capital of france" || st.Model != "fake" {
				t.Errorf("saved turn %+v", st)
			}
			if roles(st.Messages) != "user,assistant" {
				t.Errorf("saved roles %s", roles(st.Messages))
			}
			if len(st.Calls) != 1 || st.Calls[0].PromptTokens != 100 || st.Calls[0].CompletionTokens != 20 ||
				st.Calls[0].Model != "fake-model" || st.Calls[0].CostUSD != (100*1+20*2)/1e6 {
				t.Errorf("saved calls %+v", st.Calls)
			}
		})
	}
}

func TestLeanPromptHasDateAndNoTools(t *testing.T) {
	f := newFixture(t, "openai")
	req := f.request("hello")
	req.Lean = true
	res, err := f.run(t, context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	r := f.srv.Requests()[0]
	if !strings.Contains(r.System(), fixedDate) || len(r.ToolNames()) != 0 || len(f.search.args) != 0 {
		t.Errorf("lean request: system %q tools %v", r.System(), r.ToolNames())
	}
	if res.Answer != "# Answer\n\nHello from the fake LLM." {
		t.Errorf("answer %q", res.Answer)
	}
}

func TestToolLoop(t *testing.T) {
	for _, protocol := range []string{"openai", "anthropic"} {
		t.Run(protocol, func(t *testing.T) {
			f := newFixture(t, protocol)
			f.srv.Enqueue(
				llmtest.Response{Text: "Let me search.", ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "web_search", Arguments: `{"query":"alpha"}`}}, Pieces: 4},
				llmtest.Response{ToolCalls: []llmtest.ToolCall{{ID: "c2", Name: "web_search", Arguments: `{"query":"beta"}`},
					{ID: "c3", Name: "web_search", Arguments: `{"query":"fail"}`}}, Pieces: 3},
				llmtest.Response{Text: "# Alpha and Beta\n\nSee [alpha](https://example.com/alpha) and https://unread.example/x."},
			)
			res, err := f.run(t, context.Background(), f.request("compare alpha and beta"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(f.search.args, ","); got != "alpha,beta,fail" {
				t.Errorf("tool ran with %s", got)
			}
			reqs := f.srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d model calls", len(reqs))
			}
			results := reqs[2].ToolResults()
			if len(results) != 3 || !strings.Contains(results[0], "result for alpha") || !strings.Contains(results[0], `<tool_result tool="web_search" trust="untrusted"`) ||
				!strings.Contains(results[2], "Error: search provider returned 500") {
				t.Errorf("tool results sent back: %q", results)
			}
			if !strings.Contains(reqs[1].System(), "Turns Remaining: 19 (out of 20)") {
				t.Errorf("second call lacks the system update:\n%s", reqs[1].System())
			}
			if len(res.ToolCalls) != 3 || !res.ToolCalls[0].OK || res.ToolCalls[2].OK || string(res.ToolCalls[1].Arguments) != `{"query":"beta"}` {
				t.Errorf("tool call records %+v", res.ToolCalls)
			}
			if len(res.Sources) != 2 || res.Sources[0].URL != "https://example.com/alpha" {
				t.Errorf("sources %+v", res.Sources)
			}
			if len(res.Unverified) != 1 || res.Unverified[0] != "https://unread.example/x" {
				t.Errorf("unverified %v", res.Unverified)
			}
			if res.Usage.PromptTokens != 30 || res.Calls != 3 {
				t.Errorf("usage %+v calls %d", res.Usage, res.Calls)
			}
			st := f.saved(t, res.HistoryID)
			if got := roles(st.Messages); got != "user,assistant,tool,assistant,tool,tool,assistant" {
				t.Errorf("saved roles %s", got)
			}
			var calls []llm.ToolCall
			if err := json.Unmarshal([]byte(st.Messages[1].ToolCalls), &calls); err != nil || len(calls) != 1 || calls[0].ID != "c1" {
				t.Errorf("saved tool calls %q: %v", st.Messages[1].ToolCalls, err)
			}
			if st.Messages[2].ToolCallID != "c1" || st.Messages[2].Name != "web_search" {
				t.Errorf("saved tool result %+v", st.Messages[2])
			}
			if len(st.Calls) != 3 || len(st.Sources) != 2 {
				t.Errorf("saved %d calls, %d sources", len(st.Calls), len(st.Sources))
			}
			discards := 0
			for _, e := range f.events {
				if e.Kind == turn.EventTextDiscard {
					discards++
				}
			}
			if discards != 2 {
				t.Errorf("%d text discards, want one per tool-calling response", discards)
			}
		})
	}
}

func TestBadToolCallsFedBack(t *testing.T) {
	f := newFixture(t, "openai")
	f.srv.Enqueue(
		llmtest.Response{ToolCalls: []llmtest.ToolCall{
			{Name: "no_such_tool", Arguments: `{}`},
			{Name: "web_search", Arguments: `{"query": "unterminated`},
		}},
		llmtest.Response{Text: "# Done\n\nRecovered."},
	)
	res, err := f.run(t, context.Background(), f.request("q"))
	if err != nil {
		t.Fatal(err)
	}
	results := f.srv.Requests()[1].ToolResults()
	if len(results) != 2 || !strings.Contains(results[0], `unknown tool "no_such_tool"; available tools: web_search`) ||
		!strings.Contains(results[1], "arguments are not valid JSON") {
		t.Errorf("tool errors sent back: %q", results)
	}
	if len(f.search.args) != 0 {
		t.Errorf("the tool ran with invalid arguments: %v", f.search.args)
	}
	if res.Answer != "# Done\n\nRecovered." || len(res.ToolCalls) != 2 || res.ToolCalls[0].OK || res.ToolCalls[1].OK {
		t.Errorf("result %+v", res)
	}
	if string(res.ToolCalls[1].Arguments) != `"{\"query\": \"unterminated"` {
		t.Errorf("invalid arguments recorded as %s", res.ToolCalls[1].Arguments)
	}
}

func TestMaxTurnsGracefulExit(t *testing.T) {
	for _, protocol := range []string{"openai", "anthropic"} {
		t.Run(protocol, func(t *testing.T) {
			f := newFixture(t, protocol)
			for i := range 2 {
				f.srv.Enqueue(llmtest.Response{ToolCalls: []llmtest.ToolCall{{Name: "web_search", Arguments: fmt.Sprintf(`{"query":"q%d"}`, i)}}})
			}
			f.srv.Enqueue(llmtest.Response{Text: "# Final\n\nFrom what I found."})
			req := f.request("endless research")
			req.MaxTurns = 2
			res, err := f.run(t, context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			reqs := f.srv.Requests()
			if len(reqs) != 3 || len(f.search.args) != 2 {
				t.Fatalf("%d calls, %d tool runs", len(reqs), len(f.search.args))
			}
			last := reqs[2]
			if len(last.ToolNames()) != 0 {
				t.Errorf("final call still offers tools %v", last.ToolNames())
			}
			if !strings.Contains(last.System(), "You have used all of your tool turns") || !strings.Contains(last.LastUser(), "Provide your final answer now") {
				t.Errorf("final call system %q last user %q", last.System(), last.LastUser())
			}
			if !strings.Contains(reqs[0].System(), "at most 2 tool-using turns") {
				t.Errorf("max turns not substituted:\n%s", reqs[0].System())
			}
			if res.Answer != "# Final\n\nFrom what I found." {
				t.Errorf("answer %q", res.Answer)
			}
			if !strings.Contains(f.text(turn.EventNotice), "reached the limit of 2 tool turns") {
				t.Errorf("no notice; events %+v", f.events)
			}
			if st := f.saved(t, res.HistoryID); len(st.Calls) != 3 || st.Calls[2].Purpose != "final" {
				t.Errorf("saved calls %+v", st.Calls)
			}
		})
	}
}

func TestEmptyResponse(t *testing.T) {
	t.Run("retry succeeds", func(t *testing.T) {
		f := newFixture(t, "openai")
		f.srv.Enqueue(llmtest.Response{Text: "<think>nothing to say</think>\n"}, llmtest.Response{Text: "# Second Try\n\nAn answer."})
		res, err := f.run(t, context.Background(), f.request("q"))
		if err != nil {
			t.Fatal(err)
		}
		reqs := f.srv.Requests()
		if len(reqs) != 2 || !strings.Contains(reqs[1].LastUser(), "Your previous response was completely empty") {
			t.Fatalf("%d calls; retry prompt %q", len(reqs), reqs[len(reqs)-1].LastUser())
		}
		if res.Answer != "# Second Try\n\nAn answer." {
			t.Errorf("answer %q", res.Answer)
		}
	})
	t.Run("fallback", func(t *testing.T) {
		f := newFixture(t, "anthropic")
		f.srv.Enqueue(llmtest.Response{}, llmtest.Response{Text: "   "})
		res, err := f.run(t, context.Background(), f.request("q"))
		if err != nil {
			t.Fatal(err)
		}
		if len(f.srv.Requests()) != 2 || !strings.HasPrefix(res.Answer, "# No Answer") {
			t.Errorf("%d calls, answer %q", len(f.srv.Requests()), res.Answer)
		}
		if st := f.saved(t, res.HistoryID); st.Answer != res.Answer || st.Status != store.StatusComplete {
			t.Errorf("saved %+v", st)
		}
	})
}

func TestCancelPersistsInterrupted(t *testing.T) {
	f := newFixture(t, "openai")
	f.srv.Enqueue(llmtest.Response{Text: "# Long Answer\n\nThis goes on and on and on.", Pieces: 10, StallAfter: 5, Stall: llmtest.Duration(30 * time.Second)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	start := time.Now()
	res, err := f.eng.Run(ctx, f.request("q"), func(e turn.Event) {
		if e.Kind == turn.EventText {
			once.Do(func() { time.AfterFunc(30*time.Millisecond, cancel) })
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Error("cancel did not stop the stalled stream")
	}
	if res == nil || res.HistoryID == 0 {
		t.Fatalf("turn not persisted: %+v", res)
	}
	st := f.saved(t, res.HistoryID)
	if st.Status != store.StatusInterrupted || st.Error != "interrupted" {
		t.Errorf("status %q error %q", st.Status, st.Error)
	}
	if st.Answer == "" || !strings.HasPrefix("# Long Answer\n\nThis goes on and on and on.", st.Answer) {
		t.Errorf("partial answer %q", st.Answer)
	}
	if res.Answer != "" {
		t.Errorf("an interrupted turn returned answer %q", res.Answer)
	}
}

func TestTruncatedToolCallNotExecuted(t *testing.T) {
	f := newFixture(t, "openai")
	f.srv.Enqueue(llmtest.Response{ToolCalls: []llmtest.ToolCall{{Name: "web_search", Arguments: `{"query":"rm -rf"}`}}, Pieces: 3, TruncateAfter: 4})
	res, err := f.run(t, context.Background(), f.request("q"))
	if llm.KindOf(err) != llm.KindTruncated {
		t.Fatalf("err = %v", err)
	}
	if len(f.search.args) != 0 {
		t.Errorf("a tool call from a truncated stream ran: %v", f.search.args)
	}
	if st := f.saved(t, res.HistoryID); st.Status != store.StatusError || !strings.Contains(st.Error, "truncated") {
		t.Errorf("saved status %q error %q", st.Status, st.Error)
	}
}

// A model that calls a tool although none was offered (lean mode) must not
// end the turn with a silent empty answer.
func TestToolCallWithoutToolsIsNotAnEmptyAnswer(t *testing.T) {
	f := newFixture(t, "openai")
	f.srv.Enqueue(
		llmtest.Response{ToolCalls: []llmtest.ToolCall{{Name: "web_search", Arguments: `{"query":"x"}`}}},
		llmtest.Response{Text: "# Direct\n\nAnswered without tools."},
	)
	req := f.request("q")
	req.Lean = true
	res, err := f.run(t, context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "# Direct\n\nAnswered without tools." || len(f.srv.Requests()) != 2 || len(f.search.args) != 0 {
		t.Errorf("answer %q after %d calls, tool runs %v", res.Answer, len(f.srv.Requests()), f.search.args)
	}
}

// A model stuck in a tool loop, still calling tools when they are gone,
// ends with the no-final-answer text after a bounded number of calls.
func TestEndlessToolLoopEnds(t *testing.T) {
	f := newFixture(t, "anthropic")
	f.srv.SetDefault(func(llmtest.Request) llmtest.Response {
		calls := make([]llmtest.ToolCall, 12)
		for i := range calls {
			calls[i] = llmtest.ToolCall{Name: "web_search", Arguments: fmt.Sprintf(`{"query":"q%d"}`, i)}
		}
		return llmtest.Response{ToolCalls: calls}
	})
	req := f.request("loop forever")
	req.MaxTurns = 3
	res, err := f.run(t, context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.srv.Requests()); n != 5 {
		t.Errorf("%d model calls, want 3 tool turns + 2 final attempts", n)
	}
	if len(f.search.args) != 36 || !strings.HasPrefix(res.Answer, "# No Final Answer") {
		t.Errorf("%d tool runs, answer %q", len(f.search.args), res.Answer)
	}
}

// A model that writes its tool call into the text (asky-behavior.md §4.1
// fallbacks) gets it run, and the result goes back as a tool message.
func TestToolCallWrittenInText(t *testing.T) {
	f := newFixture(t, "openai")
	f.srv.Enqueue(
		llmtest.Response{Text: "<tool_call>\n<function=web_search>\n<parameter=query>\nalpha\n</parameter>\n</function>\n</tool_call>"},
		llmtest.Response{Text: "# Alpha\n\nDone."},
	)
	res, err := f.run(t, context.Background(), f.request("what is alpha"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.search.args, ","); got != "alpha" {
		t.Fatalf("tool ran with %q", got)
	}
	if res.Answer != "# Alpha\n\nDone." || len(res.ToolCalls) != 1 || !res.ToolCalls[0].OK {
		t.Errorf("answer %q calls %+v", res.Answer, res.ToolCalls)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls", len(reqs))
	}
	msgs := reqs[1].Messages()
	asst := msgs[len(msgs)-2]
	if tc, _ := asst["tool_calls"].([]any); len(tc) != 1 || asst["content"] != nil {
		t.Errorf("assistant message replayed as %v", asst)
	}
	if r := reqs[1].ToolResults(); len(r) != 1 || !strings.Contains(r[0], "result for alpha") {
		t.Errorf("tool results %q", r)
	}
}

// The system update counts the whole request (system prompt and tool
// schemas included), as the original does, not only the messages.
func TestSystemUpdateCountsWholeRequest(t *testing.T) {
	f := newFixture(t, "openai")
	f.srv.Enqueue(llmtest.Response{Text: "# Hi\n\nhello"})
	if _, err := f.run(t, context.Background(), f.request("hi")); err != nil {
		t.Fatal(err)
	}
	sys := f.srv.Requests()[0].System()
	m := regexp.MustCompile(`Context Used: (\d+\.\d\d)% - Turns Remaining: 20 \(out of 20\)`).FindStringSubmatch(sys)
	if m == nil {
		t.Fatalf("no system update in:\n%s", sys)
	}
	if pct, _ := strconv.ParseFloat(m[1], 64); pct < 1 || pct > 50 {
		t.Errorf("context used %s%% for a system prompt of %d chars in 8000 tokens", m[1], len(sys))
	}
}
