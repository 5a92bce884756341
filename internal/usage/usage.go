// Package usage is asky's usage ledger: it records every model call's
// tokens and cost (a llm.Meter over the store), sums them by model, day,
// session or purpose for `asky usage` and the daemon's GET /v1/usage, and
// enforces the optional daily cost budget.
package usage

import (
	"context"
	"fmt"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/store"
)

// Ledger is the store side the recorder needs.
type Ledger interface {
	RecordUsage(ctx context.Context, e *store.UsageEvent) error
}

// Recorder is the llm.Meter of one model: it prices each call with the
// model's configured prices and appends it to the ledger.
type Recorder struct {
	Ledger Ledger
	Model  *config.ResolvedModel
	// Session returns the session the call belongs to (0: none); it is
	// read at call time because a turn may create its session late.
	Session func() int64
	// OnError is told when a call could not be recorded (nil: ignored).
	// A failed record never fails the answer.
	OnError func(error)
	// Spent is told the cost of each priced call (nil: nobody asks).
	Spent func(usd float64)
}

// Event prices c for m.
func Event(m *config.ResolvedModel, c llm.Call) store.UsageEvent {
	e := store.UsageEvent{Model: c.Model, Purpose: c.Purpose, PromptTokens: c.Usage.PromptTokens,
		CompletionTokens: c.Usage.CompletionTokens, CacheReadTokens: c.Usage.CacheReadTokens,
		CacheWriteTokens: c.Usage.CacheWriteTokens, Estimated: c.Estimated}
	if m != nil {
		if e.Model == "" {
			e.Model = m.ID
		}
		if usd, ok := m.Prices().Cost(e.PromptTokens, e.CompletionTokens, e.CacheReadTokens, e.CacheWriteTokens); ok {
			e.CostUSD = &usd
		}
	}
	return e
}

// Record implements llm.Meter.
func (r *Recorder) Record(ctx context.Context, c llm.Call) {
	e := Event(r.Model, c)
	if r.Session != nil {
		e.SessionID = r.Session()
	}
	if e.CostUSD != nil && r.Spent != nil {
		r.Spent(*e.CostUSD)
	}
	if err := r.Ledger.RecordUsage(ctx, &e); err != nil && r.OnError != nil {
		r.OnError(fmt.Errorf("recording usage: %w", err))
	}
}
