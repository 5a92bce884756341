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
func BuildMatch(text string) string {
	toks := Tokens(text)
	content := make([]string, 0, len(toks))
	for _, t := range toks {
		if !IsStopword(t) {
			content = append(content, t)
		}
	}
	if len(content) == 0 {
		content = toks // a query of only stopwords still deserves an answer
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
