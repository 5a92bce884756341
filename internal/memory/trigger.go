package memory

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// StripTrigger reports whether query starts with one of triggers (such as
// "remember globally:"), ignoring case (Unicode case folding), leading
// space and the amount of space between the trigger's words. It returns the
// query without the trigger, trimmed, and the trigger that matched.
func StripTrigger(query string, triggers []string) (rest, trigger string, ok bool) {
	q := strings.TrimLeftFunc(query, unicode.IsSpace)
	for _, t := range triggers {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if n, ok := matchPrefix(q, t); ok {
			return strings.TrimSpace(q[n:]), t, true
		}
	}
	return query, "", false
}

// matchPrefix matches trigger t at the start of q and returns the number of
// bytes of q it covers.
func matchPrefix(q, t string) (int, bool) {
	i := 0
	for j := 0; j < len(t); {
		tr, tn := utf8.DecodeRuneInString(t[j:])
		if unicode.IsSpace(tr) {
			for j < len(t) {
				r, n := utf8.DecodeRuneInString(t[j:])
				if !unicode.IsSpace(r) {
					break
				}
				j += n
			}
			start := i
			for i < len(q) {
				r, n := utf8.DecodeRuneInString(q[i:])
				if !unicode.IsSpace(r) {
					break
				}
				i += n
			}
			if i == start {
				return 0, false
			}
			continue
		}
		if i >= len(q) {
			return 0, false
		}
		qr, qn := utf8.DecodeRuneInString(q[i:])
		if !strings.EqualFold(string(qr), string(tr)) {
			return 0, false
		}
		i, j = i+qn, j+tn
	}
	// A trigger that ends in a letter must end a word: "remember" does not
	// match "remembering".
	last, _ := utf8.DecodeLastRuneInString(t)
	if next, _ := utf8.DecodeRuneInString(q[i:]); i < len(q) && isWordRune(last) && isWordRune(next) {
		return 0, false
	}
	return i, true
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// TriggerFact returns what to remember from the text after a trigger: its
// statements, without the sentences that are questions, so
// "I live in Lisbon. What is on this weekend?" remembers "I live in
// Lisbon." and still asks the whole text. It returns "" when every
// sentence is a question.
func TriggerFact(rest string) string {
	var keep []string
	start := 0
	runes := []rune(rest)
	for i, r := range runes {
		if !strings.ContainsRune(".!?。！？", r) {
			continue
		}
		// A sentence ends at its mark followed by space or the end:
		// "Go 1.26" and "e.g." inside words do not split.
		if i+1 < len(runes) && !unicode.IsSpace(runes[i+1]) && !strings.ContainsRune("。！？", r) {
			continue
		}
		keep = appendStatement(keep, string(runes[start:i+1]))
		start = i + 1
	}
	keep = appendStatement(keep, string(runes[start:]))
	return strings.Join(keep, " ")
}

func appendStatement(keep []string, s string) []string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") {
		return keep
	}
	return append(keep, s)
}
