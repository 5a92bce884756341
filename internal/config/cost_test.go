package config

import (
	"math"
	"testing"
)

func TestPricesCost(t *testing.T) {
	tests := []struct {
		name                     string
		p                        Prices
		prompt, out, read, write int
		want                     float64
		ok                       bool
	}{
		{"unknown prices: tokens only", Prices{}, 1000, 500, 0, 0, 0, false},
		{"per million", Prices{In: 3, Out: 15}, 1_000_000, 100_000, 0, 0, 3 + 1.5, true},
		{"cache read at its own price", Prices{In: 3, Out: 15, CacheRead: 0.3}, 1_000_000, 0, 800_000, 0, 0.2*3 + 0.8*0.3, true},
		{"cache write at its own price", Prices{In: 3, Out: 15, CacheWrite: 3.75}, 1_000_000, 0, 0, 1_000_000, 3.75, true},
		{"cache without a price is charged as input", Prices{In: 2, Out: 8}, 1_000_000, 0, 500_000, 0, 2, true},
		{"output-only price", Prices{Out: 10}, 1000, 1000, 0, 0, 0.01, true},
		{"cache counts larger than prompt never go negative", Prices{In: 1, Out: 1, CacheRead: 0.1}, 10, 0, 20, 0, 20 * 0.1 / 1e6, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.p.Cost(tt.prompt, tt.out, tt.read, tt.write)
			if ok != tt.ok || math.Abs(got-tt.want) > 1e-12 {
				t.Fatalf("Cost = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestValidateCostRejectsNegatives(t *testing.T) {
	c := Defaults()
	c.Limits.DailyCostUSD = -1
	if k, _ := c.validateCost(); k != "limits.daily_cost_usd" {
		t.Fatalf("key = %q", k)
	}
	c.Limits.DailyCostUSD = 0
	c.Models = map[string]Model{"m": {PriceCacheRead: -0.1}}
	if k, _ := c.validateCost(); k != "models.m.price_cache_read" {
		t.Fatalf("key = %q", k)
	}
}
