package usage

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/askygo/asky/internal/store"
)

// Groupings of a report.
var Groupings = []string{"model", "day", "session", "purpose"}

// Totals are the sums of a group of calls.
type Totals struct {
	Key              string  `json:"key"`
	Calls            int     `json:"calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CacheReadTokens  int     `json:"cache_read_tokens"`
	CacheWriteTokens int     `json:"cache_write_tokens"`
	CostUSD          float64 `json:"cost_usd"`
	// UnpricedCalls were made with a model that has no configured prices:
	// their tokens count, their cost is unknown (not in CostUSD).
	UnpricedCalls int `json:"unpriced_calls"`
}

func (t *Totals) add(e store.UsageEvent) {
	t.Calls++
	t.PromptTokens += e.PromptTokens
	t.CompletionTokens += e.CompletionTokens
	t.CacheReadTokens += e.CacheReadTokens
	t.CacheWriteTokens += e.CacheWriteTokens
	if e.CostUSD != nil {
		t.CostUSD += *e.CostUSD
	} else {
		t.UnpricedCalls++
	}
}

// Report is the usage from Since on, grouped By.
type Report struct {
	// Since is nil for all recorded usage.
	Since *time.Time `json:"since"`
	By    string     `json:"by"`
	Rows  []Totals   `json:"rows"`
	Total Totals     `json:"total"`
}

// Summarize groups events by "model", "day" (local date), "session" or
// "purpose". Days are in date order; other groups by cost, then tokens.
func Summarize(events []store.UsageEvent, by string, since time.Time) Report {
	r := Report{By: by, Total: Totals{Key: "total"}}
	if !since.IsZero() {
		r.Since = &since
	}
	idx := map[string]int{}
	for _, e := range events {
		k := key(e, by)
		i, ok := idx[k]
		if !ok {
			i = len(r.Rows)
			idx[k] = i
			r.Rows = append(r.Rows, Totals{Key: k})
		}
		r.Rows[i].add(e)
		r.Total.add(e)
	}
	// Sums of float prices drift (0.0032550000000000014): keep nano-dollars,
	// far below any price, so --json and /v1/usage print what was spent.
	for i := range r.Rows {
		r.Rows[i].CostUSD = roundCost(r.Rows[i].CostUSD)
	}
	r.Total.CostUSD = roundCost(r.Total.CostUSD)
	if by == "day" {
		sort.Slice(r.Rows, func(i, j int) bool { return r.Rows[i].Key < r.Rows[j].Key })
	} else {
		sort.SliceStable(r.Rows, func(i, j int) bool {
			a, b := r.Rows[i], r.Rows[j]
			if a.CostUSD != b.CostUSD {
				return a.CostUSD > b.CostUSD
			}
			return a.PromptTokens+a.CompletionTokens > b.PromptTokens+b.CompletionTokens
		})
	}
	if r.Rows == nil {
		r.Rows = []Totals{}
	}
	return r
}

func roundCost(usd float64) float64 { return math.Round(usd*1e9) / 1e9 }

func key(e store.UsageEvent, by string) string {
	switch by {
	case "day":
		return e.At.Local().Format(time.DateOnly)
	case "session":
		switch {
		case e.SessionID == 0:
			return "(no session)"
		case e.SessionName == "":
			return "S" + strconv.FormatInt(e.SessionID, 10)
		}
		return e.SessionName
	case "purpose":
		return e.Purpose
	}
	return e.Model
}

var relative = regexp.MustCompile(`^(\d+)([hdw])$`)

// ParseSince reads --since: "today", "yesterday", "all", a duration back
// from now in hours, days or weeks ("24h", "7d", "2w"), or a local date
// "2026-11-01". The zero time means everything.
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "", "all":
		return time.Time{}, nil
	case "today":
		return StartOfDay(now), nil
	case "yesterday":
		return StartOfDay(now).AddDate(0, 0, -1), nil
	}
	if m := relative.FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n <= 0 || n > 100000 {
			return time.Time{}, fmt.Errorf("--since %q: the count must be a positive number", s)
		}
		switch m[2] {
		case "h":
			return now.Add(-time.Duration(n) * time.Hour), nil
		case "w":
			n *= 7
		}
		return StartOfDay(now).AddDate(0, 0, 1-n), nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, now.Location()); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want today, yesterday, all, Nh, Nd, Nw or a date like 2026-11-01", s)
}

// Period reads the HTTP API's period: today, week (the last 7 days,
// today included) or all.
func Period(p string, now time.Time) (time.Time, error) {
	switch p {
	case "", "today":
		return StartOfDay(now), nil
	case "week":
		return StartOfDay(now).AddDate(0, 0, -6), nil
	case "all":
		return time.Time{}, nil
	}
	return time.Time{}, fmt.Errorf("period %q: want today, week or all", p)
}

// Money prints a cost with the precision small amounts need.
func Money(usd float64) string {
	switch {
	case usd >= 1:
		return fmt.Sprintf("$%.2f", usd)
	case usd >= 0.01:
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("$%.6f", usd)
}
