// Package jobs runs asky's scheduled questions: schedules (--every,
// --cron, --at), the scheduler the daemon runs (one run at a time per
// job, missed runs once, interrupted runs retried once), per-run time and
// cost budgets, and delivery of the answer to a notify target.
package jobs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Schedule kinds.
const (
	Every  = "every"
	Cron   = "cron"
	At     = "at"
	Manual = "manual"
)

// MinEvery is the shortest --every interval.
const MinEvery = time.Minute

var everyRe = regexp.MustCompile(`^(\d+)([mhdw])$`)

// ParseEvery reads an interval: 30m, 6h, 1d, 2w.
func ParseEvery(s string) (time.Duration, error) {
	m := everyRe.FindStringSubmatch(strings.TrimSpace(strings.ToLower(s)))
	if m == nil {
		return 0, fmt.Errorf("--every %q: want a number and a unit: 30m, 6h, 1d, 1w", s)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n <= 0 || n > 10000 {
		return 0, fmt.Errorf("--every %q: the count must be between 1 and 10000", s)
	}
	unit := map[string]time.Duration{"m": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}[m[2]]
	return time.Duration(n) * unit, nil
}

// ParseAt reads a one-off time: RFC 3339, "2026-11-25 09:00", or "09:00"
// (the next such time, today or tomorrow), in now's location.
func ParseAt(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, now.Location()); err == nil {
			return t, nil
		}
	}
	if t, err := time.ParseInLocation("15:04", s, now.Location()); err == nil {
		y, mo, d := now.Date()
		at := time.Date(y, mo, d, t.Hour(), t.Minute(), 0, 0, now.Location())
		if !at.After(now) {
			at = at.AddDate(0, 0, 1)
		}
		return at, nil
	}
	return time.Time{}, fmt.Errorf("--at %q: want 09:00, 2026-11-25 09:00 or an RFC 3339 time", s)
}

// Next is the first run of a recurring schedule strictly after after;
// zero for "at" and "manual" (they are not repeated).
func Next(kind, spec string, after time.Time) (time.Time, error) {
	switch kind {
	case Every:
		d, err := ParseEvery(spec)
		if err != nil {
			return time.Time{}, err
		}
		return after.Add(d), nil
	case Cron:
		c, err := ParseCron(spec)
		if err != nil {
			return time.Time{}, err
		}
		return c.Next(after), nil
	}
	return time.Time{}, nil
}

// Following is the next run after a run that was due at due and ran at
// now. Runs missed while asky was down are not made up: an --every job
// keeps its rhythm but skips to the first slot after now, a cron job
// takes its next time after now.
func Following(kind, spec string, due, now time.Time) (time.Time, error) {
	if kind == Every {
		d, err := ParseEvery(spec)
		if err != nil {
			return time.Time{}, err
		}
		next := due.Add(d)
		if !next.After(now) {
			next = next.Add(((now.Sub(next) / d) + 1) * d)
		}
		return next, nil
	}
	return Next(kind, spec, now)
}
