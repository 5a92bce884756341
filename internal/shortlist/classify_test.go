package shortlist

import (
	"strings"
	"testing"

	"github.com/askygo/asky/internal/config"
)

func TestClassify(t *testing.T) {
	def := ClassifyFromConfig(config.DefaultQueryClassification())
	aggr := def
	aggr.AggressiveMode = true
	off := def
	off.Enabled = false
	force := def
	force.ForceResearchMode = true
	for _, tc := range []struct {
		name   string
		q      string
		docs   int
		o      ClassifyOptions
		mode   string
		reason string
	}{
		{"summary of small corpus", "Summarize the key findings of these reports", 3, def, ModeOneShot, "summary request"},
		{"british spelling", "Summarise the architecture notes", 1, def, ModeOneShot, "summary request"},
		{"tl;dr", "tl;dr of the meeting notes please", 10, def, ModeOneShot, "summary request"},
		{"key points", "What are the key points of the design doc?", 2, def, ModeOneShot, "summary request"},
		{"at threshold", "Give me an overview of the papers", 10, def, ModeOneShot, "10 of at most 10"},
		{"over threshold", "Give me an overview of the papers", 11, def, ModeResearch, "too large"},
		{"aggressive threshold", "Give me an overview of the papers", 20, aggr, ModeOneShot, "20 of at most 20"},
		{"aggressive over", "Give me an overview of the papers", 21, aggr, ModeResearch, "too large"},
		{"no keyword", "How does the election timeout work in these notes?", 3, def, ModeResearch, "no summarization keyword"},
		{"vague phrase", "tell me about the summary files", 3, def, ModeResearch, "vague"},
		{"too short", "summary", 3, def, ModeResearch, "vague"},
		{"no documents", "Summarize the documents", 0, def, ModeResearch, "no local documents"},
		{"disabled", "Summarize the documents", 3, off, ModeResearch, "disabled"},
		{"forced research", "Summarize the documents", 3, force, ModeResearch, "force_research_mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Classify(tc.q, tc.docs, tc.o)
			if c.Mode != tc.mode || !strings.Contains(c.Reason, tc.reason) {
				t.Fatalf("Classify = %+v; want %s ~ %q", c, tc.mode, tc.reason)
			}
			if c.Mode == ModeOneShot && (c.Confidence < 0.85 || c.Confidence > 0.95) {
				t.Errorf("confidence %.3f outside 0.85–0.95", c.Confidence)
			}
		})
	}
	if a, b := Classify("Summarize it all", 1, def).Confidence, Classify("Summarize it all", 10, def).Confidence; a != 0.95 || b < 0.849 || b > 0.851 {
		t.Errorf("confidence range %.3f..%.3f", a, b)
	}
}
