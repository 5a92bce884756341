package shortlist

// ClassifyOptions are the [query_classification] settings.
type ClassifyOptions struct {
	Enabled                     bool
	OneShotDocumentThreshold    int // 10
	AggressiveMode              bool
	AggressiveDocumentThreshold int // 20
	ForceResearchMode           bool
}

// Classification is the verdict of Classify.
type Classification struct {
	// Mode is "one_shot" (answer from the small corpus in one pass) or
	// "research".
	Mode       string
	Confidence float64
	Reason     string
}

// Classify decides, after local ingestion, whether a research question
// over docCount documents is a one-shot summary (§5.7).
func Classify(query string, docCount int, o ClassifyOptions) Classification {
	return Classification{Mode: "research"}
}
