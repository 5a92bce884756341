package compose

import (
	"regexp"
	"strings"
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

var (
	// A name is one to four words of letters (with ' - .), nothing else.
	fpName = regexp.MustCompile(`^(?i)(?:call me|my name is)\s+([\p{L}][\p{L}'.-]*(?:\s+[\p{L}][\p{L}'.-]*){0,3})$`)
	// "remember (that) …" stores a statement; a question ("remember
	// when…?", "remember how to…") is not one.
	fpRemember = regexp.MustCompile(`^(?i)remember(?:\s+that)?\s+(.+)$`)
	fpForget   = regexp.MustCompile(`^(?i)forget(?:\s+that)?\s+(.+)$`)
	fpRecall   = regexp.MustCompile(`^(?i)what\s+do\s+you\s+(?:remember|know)\s+about\s+me\s*\??$`)
	// Words that make "remember …" / "forget …" a question or a request
	// for something else than storing a fact.
	fpNotAName = regexp.MustCompile(`^(?i)(?:not|a|an|the|back|later|tomorrow|tonight|when|if|maybe|sometime|now|again|soon|what|who|that|this|it|anything|whatever)\b`)
	fpNotAFact = regexp.MustCompile(`^(?i)(?:to|when|how|what|who|whom|why|where|which|if|whether|me|it|about|everything|all|this|the\s+previous|my\s+last)\b`)
)

// matchFastPath returns the fast path for the whole question q, if any.
func matchFastPath(q string) (fastPath, bool) {
	q = strings.TrimSpace(q)
	if q == "" || strings.ContainsAny(q, "\n\r") || len(q) > 500 {
		return fastPath{}, false
	}
	if fpRecall.MatchString(q) {
		return fastPath{Kind: "recall"}, true
	}
	if strings.HasSuffix(q, "?") {
		return fastPath{}, false
	}
	q = strings.TrimRight(q, ".! ")
	if m := fpName.FindStringSubmatch(q); m != nil && !fpNotAName.MatchString(m[1]) {
		return fastPath{Kind: "name", Arg: m[1]}, true
	}
	for _, p := range []struct {
		kind string
		re   *regexp.Regexp
	}{{"remember", fpRemember}, {"forget", fpForget}} {
		if m := p.re.FindStringSubmatch(q); m != nil && !fpNotAFact.MatchString(m[1]) {
			return fastPath{Kind: p.kind, Arg: m[1]}, true
		}
	}
	return fastPath{}, false
}
