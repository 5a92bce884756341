package memory

import (
	"math"
	"strings"
	"unicode"
)

// Lexical similarity for short facts. Until an embedder is plugged in, a
// memory and a query are compared as sets of normalised terms: lowercased,
// common Latin diacritics folded, stopwords dropped, lightly stemmed
// (English suffixes only). The cosine of two term sets is
// |A∩B| / sqrt(|A|·|B|), which is 1 for the same fact phrased with other
// function words ("I live in Lisbon" / "i live in lisbon.") and falls
// quickly as facts diverge.

// terms returns the distinct normalised terms of s, in first-seen order.
func terms(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, tok := range strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r)
	}) {
		tok = fold(tok)
		if stopwords[tok] || (len([]rune(tok)) < 2 && !isDigits(tok)) {
			continue
		}
		tok = stem(tok)
		if !seen[tok] {
			seen[tok] = true
			out = append(out, tok)
		}
	}
	return out
}

// cosine is the set cosine of two term lists (each without duplicates).
func cosine(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	set := make(map[string]bool, len(a))
	for _, t := range a {
		set[t] = true
	}
	n := 0
	for _, t := range b {
		if set[t] {
			n++
		}
	}
	return float64(n) / math.Sqrt(float64(len(a))*float64(len(b)))
}

// unseenWeight is the weight of a query term that no memory in scope
// contains. Such words ("best weekend trips from Lisbon": best, weekend,
// trips) say nothing about which memory fits, so counting them fully would
// let a long question drown the one word that matters; dropping them would
// let any shared word recall a memory.
const unseenWeight = 0.5

// queryCosine is the cosine of query terms q against memory terms m where
// query terms absent from vocab weigh unseenWeight. It is asymmetric, for
// recall only; deduplication uses the symmetric cosine.
func queryCosine(q, m []string, vocab map[string]bool) float64 {
	if len(q) == 0 || len(m) == 0 {
		return 0
	}
	mset := make(map[string]bool, len(m))
	for _, t := range m {
		mset[t] = true
	}
	var dot, qnorm float64
	for _, t := range q {
		w := 1.0
		if !vocab[t] {
			w = unseenWeight
		}
		qnorm += w * w
		if mset[t] {
			dot += w
		}
	}
	return dot / math.Sqrt(qnorm*float64(len(m)))
}

// ftsQuery turns terms into an FTS5 query matching any of them as a prefix
// of a stored word, so every memory sharing a stem is a candidate.
func ftsQuery(ts []string) string {
	parts := make([]string, 0, len(ts))
	for _, t := range ts {
		// "city" is the stem of "cities": match on "cit" so both are found.
		if len(t) > 3 && strings.HasSuffix(t, "y") {
			t = t[:len(t)-1]
		}
		parts = append(parts, `"`+strings.ReplaceAll(t, `"`, `""`)+`"*`)
	}
	return strings.Join(parts, " OR ")
}

// fold lowercases and strips the diacritics of common Latin letters.
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		r = unicode.ToLower(r)
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if f, ok := latinFold[r]; ok {
			b.WriteString(f)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

var latinFold = func() map[rune]string {
	m := map[rune]string{'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'ð': "d", 'þ': "th", 'ı': "i"}
	for base, variants := range map[string]string{
		"a": "àáâãäåāăą", "c": "çćĉċč", "d": "ď", "e": "èéêëēĕėęě", "g": "ĝğġģ", "h": "ĥħ",
		"i": "ìíîïĩīĭįİ", "j": "ĵ", "k": "ķ", "l": "ĺļľŀ", "n": "ñńņňŉ", "o": "òóôõöōŏő",
		"r": "ŕŗř", "s": "śŝşš", "t": "ţťŧ", "u": "ùúûüũūŭůűų", "w": "ŵ", "y": "ýÿŷ", "z": "źżž",
	} {
		for _, v := range variants {
			m[v] = base
		}
	}
	return m
}()

func isDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}

// stem strips common English inflections from an ASCII word so "lives",
// "lived", "living" and "live" meet. Other scripts are left alone.
func stem(w string) string {
	if len(w) < 4 || !isASCIILetters(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	for _, suf := range []string{"ing", "ed"} {
		base := strings.TrimSuffix(w, suf)
		if base == w || len(base) < 3 || !strings.ContainsAny(base, "aeiouy") {
			continue
		}
		w = base
		if n := len(w); w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
			w = w[:n-1]
		}
		break
	}
	if len(w) > 5 && strings.HasSuffix(w, "ly") {
		w = w[:len(w)-2]
	}
	if len(w) >= 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// stopwords are English function words plus words every memory shares
// ("user"), which would otherwise dilute the similarity of real facts.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all also am an and any are aren't as at be
		because been before being below between both but by can can't cannot could did do does doing don't down during
		each else ever few for from further had has have having he her here hers herself him himself his how i i'm if
		in into is isn't it it's its itself just let's me more most much my myself no nor not now of off on once only
		or other ought our ours ourselves out over own please same shall she should so some such than that that's the
		their theirs them themselves then there these they this those through to too under until up very was we were
		what what's when where which while who whom whose why will with would you your yours yourself yourselves
		s t d ll m re ve don doesn didn isn aren wasn weren won wouldn shouldn couldn
		user users tell know remember`) {
		m[w] = true
	}
	return m
}()

// denseCosine is the cosine of two vectors, clamped to [0, 1]; vectors of
// different lengths (another space) score 0.
func denseCosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return min(1, max(0, dot/math.Sqrt(na*nb)))
}
