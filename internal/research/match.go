package research

import (
	"sort"
	"strings"
)

// Strict section matching (asky-behavior.md §5.13): a title query is
// scored against every section title as 0.56·sequence similarity +
// 0.32·token overlap + 0.2 when one contains the other (1.0 for an equal
// title). The best is accepted at ≥0.86 with a margin of ≥0.06 over the
// next title; otherwise titles scoring ≥0.42 are suggested, at most five.
const (
	matchAccept     = 0.86
	matchMargin     = 0.06
	matchSuggest    = 0.42
	matchSuggestMax = 5
)

// MatchSection selects a section by id (exact) or by title (strict
// match). Sections sharing a title (a table-of-contents entry and the
// chapter it names) count once, as the largest of them. With no match it
// returns the ids and titles of the closest sections.
func MatchSection(secs []Section, q string) (*Section, []string) {
	q = strings.TrimSpace(q)
	for i := range secs {
		if secs[i].ID == q {
			return &secs[i], nil
		}
	}
	nq := normTitle(q)
	if nq == "" {
		return nil, nil
	}
	// The canonical section of each distinct title: the largest.
	canon := map[string]int{}
	var titles []string
	for i := range secs {
		nt := normTitle(secs[i].Title)
		if nt == "" {
			continue
		}
		j, ok := canon[nt]
		if !ok {
			titles = append(titles, nt)
		}
		if !ok || secs[i].End-secs[i].Start > secs[j].End-secs[j].Start {
			canon[nt] = i
		}
	}
	type scored struct {
		i     int
		score float64
	}
	var ss []scored
	for _, nt := range titles {
		ss = append(ss, scored{canon[nt], titleScore(nq, nt)})
	}
	sort.SliceStable(ss, func(a, b int) bool { return ss[a].score > ss[b].score })
	if len(ss) > 0 && ss[0].score >= matchAccept && (len(ss) == 1 || ss[0].score-ss[1].score >= matchMargin) {
		return &secs[ss[0].i], nil
	}
	var ids []string
	for _, s := range ss {
		if s.score < matchSuggest || len(ids) == matchSuggestMax {
			break
		}
		ids = append(ids, secs[s.i].ID+" ("+secs[s.i].Title+")")
	}
	return nil, ids
}

// titleScore is the strict-match score of a normalized query against a
// normalized title.
func titleScore(q, t string) float64 {
	if q == t {
		return 1
	}
	qt := strings.Fields(q)
	tt := map[string]bool{}
	for _, w := range strings.Fields(t) {
		tt[w] = true
	}
	hit := 0
	for _, w := range qt {
		if tt[w] {
			hit++
		}
	}
	s := 0.56 * seqRatio(q, t)
	if len(qt) > 0 {
		s += 0.32 * float64(hit) / float64(len(qt))
	}
	if strings.Contains(t, q) || strings.Contains(q, t) {
		s += 0.2
	}
	return min(s, 1)
}

// seqRatio is the Ratcliff/Obershelp similarity 2·M/T of a and b, where M
// counts the characters of the matching blocks found by recursively
// taking the longest common substring (Python's difflib ratio, without
// its junk heuristics, which only apply to long inputs).
func seqRatio(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	if len(ra)+len(rb) == 0 {
		return 1
	}
	return 2 * float64(matchingChars(ra, rb)) / float64(len(ra)+len(rb))
}

func matchingChars(a, b []rune) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	// Longest common substring, leftmost in a then in b on ties.
	best, bi, bj := 0, 0, 0
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
				if cur[j] > best {
					best, bi, bj = cur[j], i-cur[j], j-cur[j]
				}
			} else {
				cur[j] = 0
			}
		}
		prev, cur = cur, prev
	}
	if best == 0 {
		return 0
	}
	return best + matchingChars(a[:bi], b[:bj]) + matchingChars(a[bi+best:], b[bj+best:])
}

// NearDuplicate reports whether a and b are at least 92% similar by
// sequence similarity (asky-behavior.md §5.4's diversity filter: a
// retrieved passage this close to one already selected adds nothing).
// Cheap upper bounds on the ratio rule most pairs out before the
// quadratic comparison.
func NearDuplicate(a, b string) bool {
	const threshold = 0.92
	if a == b {
		return true
	}
	// In runes, as seqRatio counts: byte counts are no bound on a ratio
	// of characters in non-ASCII text.
	ra, rb := []rune(a), []rune(b)
	la, lb := len(ra), len(rb)
	if 2*float64(min(la, lb))/float64(la+lb) < threshold {
		return false
	}
	// Shared characters bound the matching blocks from above.
	counts := make(map[rune]int, la)
	for _, r := range ra {
		counts[r]++
	}
	shared := 0
	for _, r := range rb {
		if counts[r] > 0 {
			counts[r]--
			shared++
		}
	}
	if 2*float64(shared)/float64(la+lb) < threshold {
		return false
	}
	return 2*float64(matchingChars(ra, rb))/float64(la+lb) >= threshold
}
