package shortlist

import (
	"fmt"
	"strings"
	"time"
)

// contextTop is how many candidates the context block shows, and
// contextSnippet the snippet cap (the original's 5 and 420).
const (
	contextTop     = 5
	contextSnippet = 420
)

// ContextBlock renders the result for the user message: the seed URLs
// first, then the top five candidates with title, score, URL, why and a
// snippet of at most 420 characters. Empty when there is nothing to say.
func (r *Result) ContextBlock() string {
	if r == nil || (len(r.SeedURLs) == 0 && len(r.Candidates) == 0) {
		return ""
	}
	var b strings.Builder
	if len(r.SeedURLs) > 0 {
		b.WriteString("Seed URLs from the prompt:\n")
		for _, u := range r.SeedURLs {
			b.WriteString("- " + u + "\n")
		}
	}
	if len(r.Candidates) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		n := min(contextTop, len(r.Candidates))
		fmt.Fprintf(&b, "Source shortlist (top %d of %d ranked candidates):\n", n, r.Stats.Scored)
		for i, c := range r.Candidates[:n] {
			title := strings.TrimSpace(c.Title)
			if title == "" {
				title = c.URL
			}
			fmt.Fprintf(&b, "%d. %s (score=%.3f)\nURL: %s\n", i+1, oneLine(title), c.Score, c.URL)
			if len(c.Why) > 0 {
				b.WriteString("Why: " + strings.Join(c.Why, "; ") + "\n")
			}
			if sn := capRunes(oneLine(c.Snippet), contextSnippet); sn != "" {
				b.WriteString("Snippet: " + sn + "\n")
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// String is the -v line of the stats: counts, then each stage's time.
func (s Stats) String() string {
	ms := func(d time.Duration) string { return d.Round(time.Millisecond).String() }
	return fmt.Sprintf("%s (collect %s, fetch %s, score %s, total %s)", s.Banner(), ms(s.Collect), ms(s.Fetch), ms(s.Score), ms(s.Total))
}

// Report is the -v text of a run: the stats line, the search queries,
// the kept candidates with their scores and every failure.
func (r *Result) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "shortlist: %s", r.Stats)
	if r.TimedOut {
		b.WriteString(", budget reached")
	}
	b.WriteString("\n")
	for _, q := range r.SearchQueries {
		fmt.Fprintf(&b, "  search: %q\n", q)
	}
	for i, c := range r.Candidates {
		fmt.Fprintf(&b, "  %d. %.3f %s [%s]\n", i+1, c.Score, c.URL, c.Source)
	}
	for _, f := range r.Failures {
		if f.Skipped {
			fmt.Fprintf(&b, "  skipped %s: %s\n", f.Stage, f.Reason)
			continue
		}
		if f.URL == "" {
			fmt.Fprintf(&b, "  failed %s: %s\n", f.Stage, f.Reason)
			continue
		}
		fmt.Fprintf(&b, "  failed %s %s: %s\n", f.Stage, f.URL, f.Reason)
	}
	return strings.TrimRight(b.String(), "\n")
}
