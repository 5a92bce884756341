package shortlist

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/askygo/asky/internal/config"
)

// ClassifyOptions are the [query_classification] settings.
type ClassifyOptions struct {
	Enabled                     bool
	OneShotDocumentThreshold    int // default 10
	AggressiveMode              bool
	AggressiveDocumentThreshold int // default 20
	ForceResearchMode           bool
}

// ClassifyFromConfig maps [query_classification] onto ClassifyOptions.
func ClassifyFromConfig(c config.QueryClassification) ClassifyOptions {
	return ClassifyOptions{Enabled: c.Enabled, OneShotDocumentThreshold: c.OneShotDocumentThreshold,
		AggressiveMode: c.AggressiveMode, AggressiveDocumentThreshold: c.AggressiveDocumentThreshold,
		ForceResearchMode: c.ForceResearchMode}
}

// Classification modes.
const (
	ModeOneShot  = "one_shot"
	ModeResearch = "research"
)

// Classification is the verdict of Classify.
type Classification struct {
	// Mode is ModeOneShot (answer from the small corpus in one pass,
	// with one-shot guidance) or ModeResearch.
	Mode       string
	Confidence float64
	Reason     string
}

var (
	summaryWordsRe = regexp.MustCompile(`(?i)(\bsummari[sz]\w*|\bsummary\b|\boverview\b|\bkey points\b|\bmain ideas\b|\bhighlights?\b|\bbrief\b|\btl;?dr\b)`)
	vaguePhrases   = []string{"tell me about", "what is this", "explain these", "info on", "what's here", "show me"}
)

// Classify decides, after local ingestion, whether a research question
// over docCount documents is a one-shot summary (§5.7): a small corpus
// (≤ 10 documents, 20 in aggressive mode), a summarization keyword and a
// question that is not vague. Confidence runs from 0.95 for a single
// document down to 0.85 at the threshold.
func Classify(query string, docCount int, o ClassifyOptions) Classification {
	research := func(conf float64, why string) Classification {
		return Classification{Mode: ModeResearch, Confidence: conf, Reason: why}
	}
	if !o.Enabled {
		return research(1, "classification disabled")
	}
	if o.ForceResearchMode {
		return research(1, "force_research_mode is set")
	}
	limit := o.OneShotDocumentThreshold
	if limit <= 0 {
		limit = 10
	}
	if o.AggressiveMode {
		limit = o.AggressiveDocumentThreshold
		if limit <= 0 {
			limit = 20
		}
	}
	q := strings.ToLower(strings.TrimSpace(query))
	switch {
	case docCount <= 0:
		return research(0.9, "no local documents")
	case len(q) < 10:
		return research(0.8, "query too vague (under 10 characters)")
	}
	for _, v := range vaguePhrases {
		if strings.Contains(q, v) {
			return research(0.8, fmt.Sprintf("query too vague (%q)", v))
		}
	}
	if docCount > limit {
		return research(0.85, fmt.Sprintf("corpus too large for one pass (%d documents > %d)", docCount, limit))
	}
	if !summaryWordsRe.MatchString(q) {
		return research(0.7, "no summarization keyword")
	}
	conf := 0.95
	if limit > 1 {
		conf -= 0.10 * float64(docCount-1) / float64(limit-1)
	}
	return Classification{Mode: ModeOneShot, Confidence: conf,
		Reason: fmt.Sprintf("summary request over a small corpus (%d of at most %d documents)", docCount, limit)}
}
