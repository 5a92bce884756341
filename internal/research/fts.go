package research

import "strings"

// maxMatchTerms caps the OR query: long pasted text would otherwise scan
// most of the index.
const maxMatchTerms = 32

// BuildMatch turns user text into an FTS5 MATCH expression that can never
// be a syntax error: unicode61 tokens, stopwords dropped (an OR with common
// words costs ~100 ms at 100k chunks), each token double-quoted, joined with
// OR (an implicit AND on a natural-language question returns almost
// nothing). Empty when the text has no tokens.
func BuildMatch(text string) string { return buildMatch(Tokens(text), nil) }

// QueryTerms returns the distinct tokens BuildMatch would search for.
func QueryTerms(text string) []string {
	m := BuildMatch(text)
	if m == "" {
		return nil
	}
	var out []string
	for _, q := range strings.Split(m, " OR ") {
		out = append(out, strings.ReplaceAll(strings.Trim(q, `"`), `""`, `"`))
	}
	return out
}

// BuildMatchWithout is BuildMatch without the dropped terms (corpus-common
// words); it never drops every term.
func BuildMatchWithout(text string, drop map[string]bool) string {
	return buildMatch(Tokens(text), drop)
}

func buildMatch(toks []string, drop map[string]bool) string {
	content := make([]string, 0, len(toks))
	for _, t := range toks {
		if !IsStopword(t) {
			content = append(content, t)
		}
	}
	if len(content) == 0 {
		content = toks // a query of only stopwords still deserves an answer
	}
	if len(drop) > 0 {
		kept := make([]string, 0, len(content))
		for _, t := range content {
			if !drop[t] {
				kept = append(kept, t)
			}
		}
		if len(kept) > 0 {
			content = kept
		}
	}
	seen := map[string]bool{}
	var b strings.Builder
	n := 0
	for _, t := range content {
		if seen[t] || n >= maxMatchTerms {
			continue
		}
		seen[t] = true
		if n > 0 {
			b.WriteString(" OR ")
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(t, `"`, `""`))
		b.WriteByte('"')
		n++
	}
	return b.String()
}
