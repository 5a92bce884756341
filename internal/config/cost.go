package config

import "fmt"

// Prices are a model's USD prices per million tokens. A model whose
// price_in and price_out are both unset has unknown prices: its calls are
// counted in tokens only, never given a guessed cost.
type Prices struct {
	In, Out, CacheRead, CacheWrite float64
}

// Known reports whether a cost can be computed at all.
func (p Prices) Known() bool { return p.In > 0 || p.Out > 0 }

// Cost is the USD cost of a call. Cache reads and writes are part of
// prompt; each is priced at its own rate when set and at the input price
// otherwise, which is what a provider without a cache discount charges.
// ok is false when the prices are unknown.
func (p Prices) Cost(prompt, completion, cacheRead, cacheWrite int) (usd float64, ok bool) {
	if !p.Known() {
		return 0, false
	}
	plain := max(prompt-cacheRead-cacheWrite, 0)
	rd, wr := p.CacheRead, p.CacheWrite
	if rd == 0 {
		rd = p.In
	}
	if wr == 0 {
		wr = p.In
	}
	usd = (float64(plain)*p.In + float64(cacheRead)*rd + float64(cacheWrite)*wr + float64(completion)*p.Out) / 1e6
	return usd, true
}

// Prices returns the model's prices.
func (m *ResolvedModel) Prices() Prices {
	return Prices{In: m.PriceIn, Out: m.PriceOut, CacheRead: m.PriceCacheRead, CacheWrite: m.PriceCacheWrite}
}

// validateCost rejects negative prices and budgets.
func (c *Config) validateCost() (key, msg string) {
	if c.Limits.DailyCostUSD < 0 {
		return "limits.daily_cost_usd", fmt.Sprintf("must be 0 (no limit) or a positive amount in USD, not %g", c.Limits.DailyCostUSD)
	}
	for _, alias := range sortedKeys(c.Models) {
		m := c.Models[alias]
		for _, p := range []struct {
			key string
			v   float64
		}{{"price_in", m.PriceIn}, {"price_out", m.PriceOut}, {"price_cache_read", m.PriceCacheRead}, {"price_cache_write", m.PriceCacheWrite}} {
			if p.v < 0 {
				return formatKey([]string{"models", alias, p.key}), fmt.Sprintf("must be a positive USD price per million tokens, not %g", p.v)
			}
		}
	}
	return "", ""
}
