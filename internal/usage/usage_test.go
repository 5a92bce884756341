package usage

import (
	"testing"
	"time"

	"github.com/askygo/asky/internal/store"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 24, 15, 30, 0, 0, time.UTC)
	day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
	for in, want := range map[string]time.Time{
		"today": day(24), "yesterday": day(23), "7d": day(18), "1d": day(24), "2w": day(11),
		"24h": now.Add(-24 * time.Hour), "2026-11-01": day(1), "all": {}, "": {},
	} {
		got, err := ParseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"0d", "lastyear", "7x", "-1d", "2026-13-01"} {
		if _, err := ParseSince(bad, now); err == nil {
			t.Errorf("ParseSince(%q) accepted", bad)
		}
	}
}

func TestSummarizeByDayAndModel(t *testing.T) {
	c := func(v float64) *float64 { return &v }
	at := func(d int) time.Time { return time.Date(2026, 11, d, 12, 0, 0, 0, time.Local) }
	evs := []store.UsageEvent{
		{At: at(3), Model: "b", PromptTokens: 10, CostUSD: c(0.5)},
		{At: at(1), Model: "a", PromptTokens: 100, CompletionTokens: 5},
		{At: at(3), Model: "a", PromptTokens: 1, CostUSD: c(0.25)},
	}
	r := Summarize(evs, "day", time.Time{})
	if len(r.Rows) != 2 || r.Rows[0].Key != "2026-11-01" || r.Rows[1].Calls != 2 || r.Rows[1].CostUSD != 0.75 {
		t.Fatalf("by day %+v", r.Rows)
	}
	if r.Total.Calls != 3 || r.Total.UnpricedCalls != 1 || r.Total.PromptTokens != 111 || r.Since != nil {
		t.Fatalf("total %+v", r.Total)
	}
	m := Summarize(evs, "model", time.Time{})
	if m.Rows[0].Key != "b" || m.Rows[1].Key != "a" || m.Rows[1].UnpricedCalls != 1 {
		t.Fatalf("by model %+v", m.Rows)
	}
}

// Thirty-one calls at $0.000105 sum to 0.0032550000000000014 in floats;
// the report says $0.003255.
func TestSummarizeCostHasNoFloatNoise(t *testing.T) {
	var evs []store.UsageEvent
	for range 31 {
		c := 0.000105
		evs = append(evs, store.UsageEvent{At: time.Now(), Model: "m", CostUSD: &c})
	}
	r := Summarize(evs, "model", time.Time{})
	if r.Total.CostUSD != 0.003255 || r.Rows[0].CostUSD != 0.003255 {
		t.Fatalf("total %v, row %v", r.Total.CostUSD, r.Rows[0].CostUSD)
	}
}
