package usage

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// BudgetError refuses a question because today's recorded cost reached
// [limits] daily_cost_usd. Its message carries the figures, so a chat
// client shows the user why.
type BudgetError struct {
	Spent, Limit float64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("daily cost budget reached: spent %s today of the $%s limit ([limits] daily_cost_usd); no new questions until midnight",
		Money(e.Spent), strconv.FormatFloat(e.Limit, 'f', -1, 64))
}

// Hint is the next step for the user.
func (e *BudgetError) Hint() string {
	return "see `asky usage --since today`; raise or remove [limits] daily_cost_usd with `asky config set limits.daily_cost_usd N`"
}

// Spender sums the recorded cost from a time on.
type Spender interface {
	CostSince(ctx context.Context, since time.Time) (float64, error)
}

// CheckBudget returns a *BudgetError when limit > 0 and the cost recorded
// since local midnight of now has reached it.
func CheckBudget(ctx context.Context, s Spender, limit float64, now time.Time) error {
	if limit <= 0 {
		return nil
	}
	spent, err := s.CostSince(ctx, StartOfDay(now))
	if err != nil {
		return err
	}
	if spent >= limit {
		return &BudgetError{Spent: spent, Limit: limit}
	}
	return nil
}

// StartOfDay is local midnight of t.
func StartOfDay(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}
