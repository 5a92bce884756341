package tui

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fuzzy returns the items whose title contains the letters of q in order
// (case-insensitive), best first: contiguous runs and matches at word
// starts score higher; ties keep the original (newest-first) order.
func Fuzzy(items []Item, q string) []Item {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" {
		return items
	}
	type scored struct {
		it    Item
		score int
		idx   int
	}
	var hits []scored
	for i, it := range items {
		if s, ok := fuzzyScore(strings.ToLower(it.Title), q); ok {
			hits = append(hits, scored{it, s, i})
		}
	}
	sort.SliceStable(hits, func(a, b int) bool { return hits[a].score > hits[b].score })
	out := make([]Item, len(hits))
	for i, h := range hits {
		out[i] = h.it
	}
	return out
}

func fuzzyScore(text, q string) (int, bool) {
	score, ti := 0, 0
	prevMatch := -2
	var prev rune = ' '
	for _, qr := range q {
		found := false
		for ti < len(text) {
			r, size := utf8.DecodeRuneInString(text[ti:])
			pos := ti
			ti += size
			if r == qr {
				score++
				if pos == prevMatch+utf8.RuneLen(prev) && prevMatch >= 0 {
					score += 3 // contiguous
				}
				if pos == 0 || !unicode.IsLetter(lastRune(text[:pos])) {
					score += 2 // word start
				}
				prevMatch, prev, found = pos, r, true
				break
			}
		}
		if !found {
			return 0, false
		}
	}
	return score, true
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}
