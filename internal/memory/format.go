package memory

import (
	"strings"
	"unicode/utf8"
)

// recallHeader opens the system-prompt section of recalled memories; the
// wording is the original asky's, which models have seen in traces.
const recallHeader = "## User Memory\nThe following are previously saved facts about this user:"

// maxRecallLine caps one recalled fact in the system prompt.
const maxRecallLine = 300

// Format renders recalled memories as the "## User Memory" system section,
// one fact per line. Facts are flattened to one line so a stored memory
// cannot open sections of its own in the system prompt.
func Format(matches []Match) string {
	if len(matches) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(recallHeader)
	for _, m := range matches {
		b.WriteString("\n- ")
		b.WriteString(OneLine(m.Memory.Text, maxRecallLine))
	}
	return b.String()
}

// OneLine collapses whitespace and truncates s to n characters.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
