package compose

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// A fast path is a phrase answered locally, without a model: the user
// telling asky their name or a fact to keep, asking it to forget one, or
// asking what it remembers. Patterns are anchored to the whole message,
// so they never fire inside a longer question.
type fastPath struct {
	// Kind is "name", "remember", "forget" or "recall" (shown with -v).
	Kind string
	// Arg is the name, the fact or the text to forget.
	Arg string
}

// fastPathREs are the fast paths' patterns, compiled the first time a
// question could match one: fpName's case-folded \p{L} classes alone took
// 2.3 ms of package init, paid by every command.
type fastPathREs struct {
	name, remember, forget, recall *regexp.Regexp
	// Words that make "call me …" not a name, and "remember …" /
	// "forget …" a question or a request for something else than
	// storing a fact.
	notAName, notAFact *regexp.Regexp
}

var fastPathPatterns = sync.OnceValue(func() *fastPathREs {
	return &fastPathREs{
		// A name is one to four words of letters (with ' - .), nothing else.
		name: regexp.MustCompile(`^(?i)(?:call me|my name is)\s+([\p{L}][\p{L}'.-]*(?:\s+[\p{L}][\p{L}'.-]*){0,3})$`),
		// "remember (that) …" stores a statement; a question ("remember
		// when…?", "remember how to…") is not one.
		remember: regexp.MustCompile(`^(?i)remember(?:\s+that)?\s+(.+)$`),
		forget:   regexp.MustCompile(`^(?i)forget(?:\s+that)?\s+(.+)$`),
		recall:   regexp.MustCompile(`^(?i)what\s+do\s+you\s+(?:remember|know)\s+about\s+me\s*\??$`),
		notAName: regexp.MustCompile(`^(?i)(?:not|a|an|the|back|later|tomorrow|tonight|when|if|maybe|sometime|now|again|soon|what|who|that|this|it|anything|whatever)\b`),
		notAFact: regexp.MustCompile(`^(?i)(?:to|when|how|what|who|whom|why|where|which|if|whether|me|it|about|everything|all|this|the\s+previous|my\s+last)\b`),
	}
})

// fastPathStarts are the words every fast path begins with (lower case).
var fastPathStarts = []string{"call", "my", "remember", "forget", "what"}

// matchFastPath returns the fast path for the whole question q, if any.
func matchFastPath(q string) (fastPath, bool) {
	q = strings.TrimSpace(q)
	if q == "" || strings.ContainsAny(q, "\n\r") || len(q) > 500 {
		return fastPath{}, false
	}
	first := q
	if i := strings.IndexFunc(q, unicode.IsSpace); i >= 0 {
		first = q[:i]
	}
	if !slices.Contains(fastPathStarts, strings.ToLower(first)) {
		return fastPath{}, false // most questions: no pattern is compiled
	}
	re := fastPathPatterns()
	if re.recall.MatchString(q) {
		return fastPath{Kind: "recall"}, true
	}
	if strings.HasSuffix(q, "?") {
		return fastPath{}, false
	}
	q = strings.TrimRight(q, ".! ")
	if m := re.name.FindStringSubmatch(q); m != nil && !re.notAName.MatchString(m[1]) {
		return fastPath{Kind: "name", Arg: m[1]}, true
	}
	for _, p := range []struct {
		kind string
		re   *regexp.Regexp
	}{{"remember", re.remember}, {"forget", re.forget}} {
		if m := p.re.FindStringSubmatch(q); m != nil && !re.notAFact.MatchString(m[1]) {
			return fastPath{Kind: p.kind, Arg: m[1]}, true
		}
	}
	return fastPath{}, false
}
