package configcmd

import (
	"sort"
	"strings"

	"github.com/askygo/asky/internal/config"
)

// checkPrices warns about configured models without prices: their calls
// are counted in tokens only, so `asky usage` and the daily budget cannot
// see what they cost.
func checkPrices(rep *doctorReport, cfg *config.Config) {
	var missing []string
	for alias, m := range cfg.Models {
		if !(config.Prices{In: m.PriceIn, Out: m.PriceOut}).Known() {
			missing = append(missing, "models."+alias)
		}
	}
	if len(missing) == 0 {
		return
	}
	sort.Strings(missing)
	hint := "set them with `asky config model edit ALIAS --price-in N --price-out N` (USD per million tokens); ignore for free local models"
	if cfg.Limits.DailyCostUSD > 0 {
		hint += "; [limits] daily_cost_usd cannot count these calls"
	}
	rep.add("prices", statusWarn, hint, "%s have no price_in/price_out: `asky usage` counts their tokens but not their cost", strings.Join(missing, ", "))
}
