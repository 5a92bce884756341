package compose

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/askygo/asky/internal/usage"
)

// RunBudgetError stops a turn whose calls cost more than its
// Request.MaxCostUSD (a job run's budget).
type RunBudgetError struct {
	Spent, Limit float64
}

func (e *RunBudgetError) Error() string {
	return fmt.Sprintf("run cost budget exceeded: spent %s of $%g; the turn was stopped", usage.Money(e.Spent), e.Limit)
}

// Hint is the next step.
func (e *RunBudgetError) Hint() string {
	return "raise the job's budget (asky job add … --max-cost USD) or narrow the question"
}

// runBudget adds up the cost of a turn's calls and cancels the turn when
// it passes the limit. A nil *runBudget accepts everything.
type runBudget struct {
	limit  float64
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	spent float64
	over  bool
}

func (b *runBudget) spend(usd float64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.spent += usd
	if b.spent > b.limit && !b.over {
		b.over = true
		b.cancel(&RunBudgetError{Spent: b.spent, Limit: b.limit})
	}
}

// explain replaces the cancellation error of a stopped turn with the
// reason.
func (b *runBudget) explain(err *error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.over && *err != nil && !errors.As(*err, new(*RunBudgetError)) {
		*err = &RunBudgetError{Spent: b.spent, Limit: b.limit}
	}
}

func (c *Core) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}
