package shortlist

// PolicyInput is everything the enablement decision (§5.8) looks at.
type PolicyInput struct {
	Lean     bool
	Research bool
	// LocalOnly is research_source_mode=local_only: never the web.
	LocalOnly bool
	// Override is the request's --shortlist, else the session's stored
	// override: "on", "off", or ""/"reset" for none.
	Override string
	// HasLocalCorpus is set when local documents are preloaded this turn.
	HasLocalCorpus bool
	Query          string
	// AskIntent settles an ambiguous research+corpus query (the original
	// asks its interface model); nil, or ok=false, means off.
	AskIntent func(query string) (web bool, ok bool)
	// ModelFlag is the model's source_shortlist_enabled.
	ModelFlag *bool
	// GeneralFlag is general.shortlist_enabled.
	GeneralFlag *bool
	// Enabled, EnableResearchMode, EnableStandardMode are
	// [research.source_shortlist] enabled / enable_*_mode.
	Enabled, EnableResearchMode, EnableStandardMode bool
}

// Decision says whether the shortlist runs and why (shown by -v).
type Decision struct {
	Enabled bool
	Reason  string
}

// Decide applies the precedence of §5.8; the first rule that speaks wins.
func Decide(p PolicyInput) Decision {
	return Decision{Reason: "not built yet"}
}
