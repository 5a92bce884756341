package llm

import (
	"context"
	"time"
)

// Call is what a metered client reports about one completed model call.
type Call struct {
	// Model is the model id the request named.
	Model string
	Usage Usage
	// Estimated is set when the server reported no usage and chars/4 was
	// used instead.
	Estimated bool
	// Purpose is the caller's label for the call (see WithPurpose).
	Purpose string
	Elapsed time.Duration
}

// Meter records calls. It is the consumer's interface: the usage ledger
// implements it, the llm package only reports.
type Meter interface {
	Record(ctx context.Context, c Call)
}

// MeterFunc adapts a function to Meter.
type MeterFunc func(ctx context.Context, c Call)

// Record calls f.
func (f MeterFunc) Record(ctx context.Context, c Call) { f(ctx, c) }

// Metered wraps c so that every successful call is reported to m. It
// wraps outside the retry policy: a call that needed three attempts is
// one call with the usage of the attempt that answered.
func Metered(c Client, m Meter) Client {
	if m == nil {
		return c
	}
	return &metered{c: c, m: m}
}

type metered struct {
	c Client
	m Meter
}

func (mc *metered) Chat(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error) {
	t0 := time.Now()
	resp, err := mc.c.Chat(ctx, req, onDelta)
	if err != nil {
		return resp, err
	}
	// Recording must not be lost because the caller's context ended right
	// after the answer arrived: the tokens were spent.
	mc.m.Record(context.WithoutCancel(ctx), Call{Model: req.Model, Usage: resp.Usage, Estimated: resp.UsageEstimated,
		Purpose: PurposeOf(ctx), Elapsed: time.Since(t0)})
	return resp, nil
}

type purposeKey struct{}

// Purposes of model calls, as the usage ledger groups them.
const (
	PurposeAnswer     = "answer"
	PurposeSummary    = "summary"
	PurposeCompaction = "compaction"
	PurposeExtraction = "extraction"
	PurposeEmbedding  = "embedding"
)

// WithPurpose labels the model calls made with ctx (answer, summary,
// compaction, extraction, …) for the usage ledger.
func WithPurpose(ctx context.Context, purpose string) context.Context {
	return context.WithValue(ctx, purposeKey{}, purpose)
}

// PurposeOf returns the label set by WithPurpose, PurposeAnswer when none.
func PurposeOf(ctx context.Context) string {
	if p, ok := ctx.Value(purposeKey{}).(string); ok && p != "" {
		return p
	}
	return PurposeAnswer
}

// Purposed wraps c so that its calls carry purpose unless the caller's
// context already names one (a compaction that goes through the
// summarization client stays a compaction).
func Purposed(c Client, purpose string) Client {
	if c == nil {
		return nil
	}
	return &purposed{c: c, p: purpose}
}

type purposed struct {
	c Client
	p string
}

func (pc *purposed) Chat(ctx context.Context, req Request, onDelta func(Delta)) (*Response, error) {
	if _, ok := ctx.Value(purposeKey{}).(string); !ok {
		ctx = WithPurpose(ctx, pc.p)
	}
	return pc.c.Chat(ctx, req, onDelta)
}

type meterKey struct{}

// WithMeter carries m to calls that are not made through a Client (the
// embedding providers), so they land in the same ledger.
func WithMeter(ctx context.Context, m Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// MeterOf returns the meter set by WithMeter, nil when none.
func MeterOf(ctx context.Context) Meter {
	m, _ := ctx.Value(meterKey{}).(Meter)
	return m
}
