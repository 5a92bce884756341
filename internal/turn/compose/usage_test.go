package compose

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn"
	"github.com/askygo/asky/internal/usage"
)

// usageClient answers with fixed token counts.
type usageClient struct{ scriptedClient }

func (c *usageClient) Chat(ctx context.Context, req llm.Request, d func(llm.Delta)) (*llm.Response, error) {
	r, err := c.scriptedClient.Chat(ctx, req, d)
	r.Usage = llm.Usage{PromptTokens: 1000, CompletionTokens: 100, CacheReadTokens: 400}
	return r, err
}

func TestRunRecordsUsageWithSessionAndCost(t *testing.T) {
	core, _ := testCore(t, t.TempDir())
	core.Model = func(context.Context, string) (*config.ResolvedModel, llm.Client, error) {
		return &config.ResolvedModel{Alias: "m", ID: "m-id", ContextSize: 32000, PriceIn: 2, PriceOut: 10, PriceCacheRead: 0.5}, &usageClient{}, nil
	}
	ctx := context.Background()
	res, err := core.Run(ctx, Request{SessionName: "work", Question: "q", Lean: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := core.Store()
	evs, err := st.UsageSince(ctx, time.Time{})
	if err != nil || len(evs) != 1 {
		t.Fatalf("events %+v err %v", evs, err)
	}
	e := evs[0]
	want := (600*2 + 400*0.5 + 100*10) / 1e6
	if e.SessionID != res.SessionID || e.SessionName != "work" || e.Model != "m-id" || e.Purpose != llm.PurposeAnswer ||
		e.CacheReadTokens != 400 || e.CostUSD == nil || *e.CostUSD != want {
		t.Fatalf("event %+v (cost %v), want session %d cost %v", e, e.CostUSD, res.SessionID, want)
	}
}

func TestRunUnpricedModelRecordsTokensOnly(t *testing.T) {
	core, _ := testCore(t, t.TempDir())
	fixedModel(core, &usageClient{}, 32000)
	if _, err := core.Run(context.Background(), Request{Question: "q", Lean: true}, nil); err != nil {
		t.Fatal(err)
	}
	st, _ := core.Store()
	evs, _ := st.UsageSince(context.Background(), time.Time{})
	if len(evs) != 1 || evs[0].CostUSD != nil || evs[0].PromptTokens != 1000 || evs[0].SessionID != 0 {
		t.Fatalf("events %+v", evs)
	}
}

func TestRunRefusedOnceDailyBudgetIsSpent(t *testing.T) {
	core, cfg := testCore(t, t.TempDir())
	cfg.Limits.DailyCostUSD = 0.01
	client := &usageClient{}
	fixedModel(core, client, 32000)
	st, _ := core.Store()
	ctx := context.Background()
	yesterday := time.Now().AddDate(0, 0, -1)
	big := 5.0
	// Yesterday's spending does not count against today.
	if err := st.RecordUsage(ctx, &store.UsageEvent{At: yesterday, Model: "m", Purpose: "answer", CostUSD: &big}); err != nil {
		t.Fatal(err)
	}
	if _, err := core.Run(ctx, Request{Question: "q", Lean: true}, nil); err != nil {
		t.Fatalf("under budget: %v", err)
	}
	spent := 0.02
	if err := st.RecordUsage(ctx, &store.UsageEvent{Model: "m", Purpose: "answer", CostUSD: &spent}); err != nil {
		t.Fatal(err)
	}
	_, err := core.Run(ctx, Request{Question: "q", Lean: true}, nil)
	var be *usage.BudgetError
	if !errors.As(err, &be) || be.Spent != 0.02 || be.Limit != 0.01 {
		t.Fatalf("err %v", err)
	}
	if len(client.requests) != 1 {
		t.Fatalf("the refused question reached the model: %d requests", len(client.requests))
	}
}

func TestSummarizerCallsAreLabelled(t *testing.T) {
	core, _ := testCore(t, t.TempDir())
	var purposes []string
	meter := llm.MeterFunc(func(_ context.Context, c llm.Call) { purposes = append(purposes, c.Purpose) })
	x := &composer{Core: core, q: &Request{}, cfg: config.Defaults()}
	c := llm.Metered(&scriptedClient{}, meter)
	_, sc, err := x.summarizer(context.Background(), mustReq(c))
	if err != nil {
		t.Fatal(err)
	}
	sc.Chat(context.Background(), llm.Request{}, nil)
	sc.Chat(llm.WithPurpose(context.Background(), llm.PurposeCompaction), llm.Request{}, nil)
	c.Chat(context.Background(), llm.Request{}, nil)
	if want := []string{"summary", "compaction", "answer"}; len(purposes) != 3 || purposes[0] != want[0] || purposes[1] != want[1] || purposes[2] != want[2] {
		t.Fatalf("purposes %v, want %v", purposes, want)
	}
}

func mustReq(c llm.Client) *turn.Request {
	return &turn.Request{Model: &config.ResolvedModel{Alias: "m", ID: "m"}, Client: c}
}

func TestRunStopsAtItsCostBudget(t *testing.T) {
	core, _ := testCore(t, t.TempDir())
	client := &usageClient{}
	for range 10 {
		client.script = append(client.script, llm.Message{ToolCalls: []llm.ToolCall{{ID: "c", Name: "no_such_tool", Arguments: "{}"}}})
	}
	core.Model = func(context.Context, string) (*config.ResolvedModel, llm.Client, error) {
		return &config.ResolvedModel{Alias: "m", ID: "m-id", ContextSize: 32000, PriceIn: 2, PriceOut: 10}, client, nil
	}
	// Each call costs $0.0030: the second passes the $0.005 budget.
	_, err := core.Run(context.Background(), Request{Question: "q", MaxCostUSD: 0.005}, nil)
	var be *RunBudgetError
	if !errors.As(err, &be) || be.Limit != 0.005 || be.Spent < 0.005 {
		t.Fatalf("err %v", err)
	}
	if n := len(client.requests); n != 2 {
		t.Fatalf("%d model calls, want the run stopped after 2", n)
	}
}
