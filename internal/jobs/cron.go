package jobs

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// CronExpr is a standard five-field cron expression: minute hour
// day-of-month month day-of-week, each *, a number, a range a-b, a list
// a,b and a step */n or a-b/n. Day-of-week 0 and 7 are Sunday. As in
// cron, when both day fields are restricted either may match.
type CronExpr struct {
	min, hour, dom, month, dow uint64
	domStar, dowStar           bool
}

// ParseCron parses expr.
func ParseCron(expr string) (*CronExpr, error) {
	f := strings.Fields(expr)
	if len(f) != 5 {
		return nil, fmt.Errorf("--cron %q: want 5 fields (minute hour day month weekday), e.g. \"0 7 * * 1-5\"", expr)
	}
	var c CronExpr
	var err error
	parts := []struct {
		dst      *uint64
		lo, hi   int
		name     string
		starFlag *bool
	}{{&c.min, 0, 59, "minute", nil}, {&c.hour, 0, 23, "hour", nil}, {&c.dom, 1, 31, "day of month", &c.domStar},
		{&c.month, 1, 12, "month", nil}, {&c.dow, 0, 7, "day of week", &c.dowStar}}
	for i, p := range parts {
		if *p.dst, err = cronField(f[i], p.lo, p.hi); err != nil {
			return nil, fmt.Errorf("--cron %q: %s: %v", expr, p.name, err)
		}
		if p.starFlag != nil {
			*p.starFlag = f[i] == "*" || strings.HasPrefix(f[i], "*/")
		}
	}
	if c.dow&(1<<7) != 0 {
		c.dow |= 1
	}
	return &c, nil
}

func cronField(s string, lo, hi int) (uint64, error) {
	var bits uint64
	for _, part := range strings.Split(s, ",") {
		rng, stepS, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepS)
			if err != nil || n <= 0 {
				return 0, fmt.Errorf("bad step %q", stepS)
			}
			step = n
		}
		a, b := lo, hi
		if rng != "*" {
			as, bs, isRange := strings.Cut(rng, "-")
			var err error
			if a, err = strconv.Atoi(as); err != nil {
				return 0, fmt.Errorf("bad value %q", as)
			}
			b = a
			if isRange {
				if b, err = strconv.Atoi(bs); err != nil {
					return 0, fmt.Errorf("bad value %q", bs)
				}
			} else if hasStep {
				b = hi
			}
		}
		if a < lo || b > hi || a > b {
			return 0, fmt.Errorf("%q is outside %d-%d", part, lo, hi)
		}
		for v := a; v <= b; v += step {
			bits |= 1 << v
		}
	}
	return bits, nil
}

// Next is the first minute strictly after t that matches.
func (c *CronExpr) Next(t time.Time) time.Time {
	t = t.Truncate(time.Minute).Add(time.Minute)
	// Five years bounds an impossible date (Feb 30) without looping.
	for limit := t.AddDate(5, 0, 0); t.Before(limit); {
		switch {
		case c.month&(1<<uint(t.Month())) == 0:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, t.Location())
		case !c.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, t.Location())
		case c.hour&(1<<uint(t.Hour())) == 0:
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, t.Location())
		case c.min&(1<<uint(t.Minute())) == 0:
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}

func (c *CronExpr) dayMatches(t time.Time) bool {
	dom := c.dom&(1<<uint(t.Day())) != 0
	dow := c.dow&(1<<uint(t.Weekday())) != 0
	if c.domStar || c.dowStar {
		return dom && dow
	}
	return dom || dow
}
