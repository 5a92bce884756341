package research

import (
	"context"
	"strings"
	"unicode"
)

// exactMaxChunks is how many chunks may contain an identifier or quoted
// phrase for it to count as a rare exact match: an error code or a ticket
// number names one place, a word that is everywhere names none.
const exactMaxChunks = 8

// ExactTerms returns the parts of a query a user means literally: quoted
// phrases and identifier-like tokens (with a digit and a letter, an
// underscore, or an inner capital: E4711, max_len, SetFinalizer).
func ExactTerms(query string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.TrimSpace(s)
		k := strings.ToLower(s)
		if s != "" && !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	rest := query
	for {
		a := strings.IndexAny(rest, "\"“")
		if a < 0 {
			break
		}
		open := rest[a:]
		_, size := firstRune(open)
		b := strings.IndexAny(open[size:], "\"”")
		if b < 0 {
			break
		}
		add(open[size : size+b])
		rest = rest[:a] + " " + open[size+b+1:]
	}
	for _, f := range strings.Fields(rest) {
		f = strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
		if identifierLike(f) {
			add(f)
		}
	}
	return out
}

func firstRune(s string) (rune, int) {
	for i, r := range s {
		if i > 0 {
			return r, i
		}
	}
	return 0, len(s)
}

func identifierLike(s string) bool {
	var letter, digit, under, innerUpper bool
	prevLower := false
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			digit = true
		case r == '_':
			under = true
		case unicode.IsLetter(r):
			letter = true
			if unicode.IsUpper(r) && prevLower {
				innerUpper = true
			}
		}
		prevLower = unicode.IsLower(r)
	}
	return letter && (digit || under || innerUpper)
}

// phraseMatch is an FTS5 phrase query for s's tokens.
func phraseMatch(s string) string {
	toks := Tokens(s)
	if len(toks) == 0 {
		return ""
	}
	return `"` + strings.ReplaceAll(strings.Join(toks, " "), `"`, `""`) + `"`
}

// exactHits counts, per chunk, the rare exact terms of query it contains.
// A term found in more than exactMaxChunks chunks is not rare and counts
// for none.
func (ix *Index) exactHits(ctx context.Context, query string, sources []int64) (map[int64]int, error) {
	var out map[int64]int
	for _, term := range ExactTerms(query) {
		m := phraseMatch(term)
		if m == "" {
			continue
		}
		hits, err := ix.St.SearchCorpusFTS(ctx, m, FieldWeights, sources, exactMaxChunks+1)
		if err != nil {
			return nil, err
		}
		if len(hits) == 0 || len(hits) > exactMaxChunks {
			continue
		}
		if out == nil {
			out = map[int64]int{}
		}
		for _, h := range hits {
			out[h.ChunkID]++
		}
	}
	return out, nil
}

// exactFirst is the fused order's comparator prefix: more rare exact
// matches first, so a unique identifier's chunk is never outranked by
// chunks that sit moderately high in both lists.
func exactFirst(exact map[int64]int, a, b int64) (less, decided bool) {
	ea, eb := exact[a], exact[b]
	if ea != eb {
		return ea > eb, true
	}
	return false, false
}
