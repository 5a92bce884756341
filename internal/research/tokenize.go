package research

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// StopwordsVersion names the stopword list below. It is part of the
// hash-v1 identity: changing the list must bump the embedder version.
const StopwordsVersion = "en-v1"

// stopwordsEnV1 is the fixed English stopword list "en-v1" (127 words, the
// classic NLTK English list). It is used both by the hash-v1 embedder and
// to drop common words from FTS5 OR queries, which otherwise take ~100 ms
// at 100k chunks.
var stopwordsEnV1 = []string{
	"i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your",
	"yours", "yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers",
	"herself", "it", "its", "itself", "they", "them", "their", "theirs", "themselves", "what",
	"which", "who", "whom", "this", "that", "these", "those", "am", "is", "are",
	"was", "were", "be", "been", "being", "have", "has", "had", "having", "do",
	"does", "did", "doing", "a", "an", "the", "and", "but", "if", "or",
	"because", "as", "until", "while", "of", "at", "by", "for", "with", "about",
	"against", "between", "into", "through", "during", "before", "after", "above", "below", "to",
	"from", "up", "down", "in", "out", "on", "off", "over", "under", "again",
	"further", "then", "once", "here", "there", "when", "where", "why", "how", "all",
	"any", "both", "each", "few", "more", "most", "other", "some", "such", "no",
	"nor", "not", "only", "own", "same", "so", "than", "too", "very", "s",
	"t", "can", "will", "just", "don", "should", "now",
}

// stopwords is the lookup form of stopwordsEnV1. It is built once and never
// modified, so sharing it is safe.
var stopwords = func() map[string]struct{} {
	m := make(map[string]struct{}, len(stopwordsEnV1))
	for _, w := range stopwordsEnV1 {
		m[w] = struct{}{}
	}
	return m
}()

// IsStopword reports whether the lower-cased token is in the en-v1 list.
func IsStopword(tok string) bool {
	_, ok := stopwords[tok]
	return ok
}

// isStopwordBytes is IsStopword for a byte token (the map lookup does not
// allocate).
func isStopwordBytes(tok []byte) bool {
	_, ok := stopwords[string(tok)]
	return ok
}

// isTokenRune matches FTS5 unicode61: letters and numbers are token
// characters, everything else separates tokens.
func isTokenRune(r rune) bool {
	if r < utf8.RuneSelf {
		return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}

// Tokens splits s like FTS5 unicode61 (lower-cased runs of letters and
// numbers). Stopwords are kept; see ContentTokens.
func Tokens(s string) []string {
	var out []string
	var tz tokenizer
	tz.each(s, func(t []byte) { out = append(out, string(t)) })
	return out
}

// tokenizer yields the tokens of Tokens without allocating per token: an
// ASCII token is lower-cased into a reused buffer, only others go through
// strings.ToLower. The embedder runs it over every chunk of an ingest.
type tokenizer struct{ buf []byte }

// each calls fn with every lower-cased token of s; the slice is only valid
// during the call.
func (tz *tokenizer) each(s string, fn func([]byte)) {
	start, ascii := -1, true
	emit := func(tok string) {
		if !ascii {
			tz.buf = append(tz.buf[:0], strings.ToLower(tok)...)
		} else {
			tz.buf = tz.buf[:0]
			for i := 0; i < len(tok); i++ {
				c := tok[i]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				tz.buf = append(tz.buf, c)
			}
		}
		fn(tz.buf)
	}
	for i, r := range s {
		if isTokenRune(r) {
			if start < 0 {
				start, ascii = i, true
			}
			if r >= utf8.RuneSelf {
				ascii = false
			}
			continue
		}
		if start >= 0 {
			emit(s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		emit(s[start:])
	}
}

// ContentTokens returns Tokens(s) without en-v1 stopwords.
func ContentTokens(s string) []string {
	toks := Tokens(s)
	out := toks[:0]
	for _, t := range toks {
		if !IsStopword(t) {
			out = append(out, t)
		}
	}
	return out
}
