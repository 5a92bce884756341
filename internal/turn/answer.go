package turn

// Answer text helpers: leaked reasoning removed, citations checked against
// the sources the turn actually read, and short forms for events.

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"

	"github.com/askygo/asky/internal/tools"
)

// leakRes are compiled with the first answer, not at every start of the
// program.
var leakRes = sync.OnceValue(func() *leakPatterns {
	return &leakPatterns{
		think:            regexp.MustCompile(`(?s)<(think|thinking|thought|reasoning)>.*?</(think|thinking|thought|reasoning)>|\[thought\].*?\[/thought\]`),
		analysisPreamble: regexp.MustCompile(`(?s)\Aanalysis(?:The\s|\s).+?(?:\n\n|(\n)assistantcommentary)`),
		actionNote:       regexp.MustCompile(`(?m)^Action:[^\n]*\n?`),
		commentaryLine:   regexp.MustCompile(`(?m)^assistantcommentary[^\n]*(?:\n|\z)`),
	}
})

// leakPatterns find leaked reasoning. Gemini through its OpenAI-compatible
// endpoint can leak its inline scratchpad: an "analysis…" preamble,
// "Action: …" notes and "assistantcommentary …" lines replaying tool calls.
type leakPatterns struct {
	think, analysisPreamble, actionNote, commentaryLine *regexp.Regexp
}

// cleanAnswer strips leaked reasoning (think tags, Gemini's inline
// scratchpad) and surrounding whitespace.
func cleanAnswer(s string) string {
	re := leakRes()
	s = re.think.ReplaceAllString(s, "")
	if strings.Contains(s, "assistantcommentary") {
		s = re.analysisPreamble.ReplaceAllString(s, "${1}assistantcommentary")
		s = re.actionNote.ReplaceAllString(s, "")
		s = re.commentaryLine.ReplaceAllString(s, "")
	}
	return strings.TrimSpace(s)
}

var urlRe = regexp.MustCompile(`https?://[^\s<>()\[\]"'` + "`" + `]+`)

// unverifiedCitations lists URLs in the answer that no tool or preloader
// retrieved, so the CLI can flag them.
func unverifiedCitations(answer string, sources []tools.Source) []string {
	known := map[string]bool{}
	for _, s := range sources {
		known[normalizeCite(s.URL)] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, u := range urlRe.FindAllString(answer, -1) {
		u = strings.TrimRight(u, ".,;:!?*_")
		n := normalizeCite(u)
		if known[n] || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, u)
	}
	return out
}

func normalizeCite(u string) string {
	u = strings.TrimSuffix(strings.ToLower(u), "/")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	u = strings.TrimPrefix(u, "www.")
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	return u
}

func jsonOrString(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

func orEmptyObject(s string) string {
	if strings.TrimSpace(s) == "" {
		return "{}"
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	if i := strings.IndexByte(s, '\n'); i > 0 {
		return s[:i]
	}
	return s
}
