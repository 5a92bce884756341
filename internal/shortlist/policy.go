package shortlist

import (
	"regexp"
	"strings"
)

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
	// Helper is the plain-query helper's choice (asky-behavior.md §5.1
	// step 3), which applies when no override was given.
	Helper *bool
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
	// Intent is "web", "local" or "ambiguous" when the research+corpus
	// intent rule decided, else empty.
	Intent string
}

// The deterministic intent words of the original's policy engine.
var (
	webWordsRe   = regexp.MustCompile(`(?i)\b(latest|current|news|weather|stocks?|online|web|search|google|browse|url|https?|recent|now)\b`)
	localWordsRe = regexp.MustCompile(`(?i)\b(local|corpus|documents?|files?|pdfs?|csv|txt|md|json|my files|this document|these documents|in the files|here)\b`)
)

// Intent classifies a research query over a local corpus by its words:
// "web" (only web words), "local" (only local words) or "ambiguous".
func Intent(query string) string {
	web, local := webWordsRe.MatchString(query), localWordsRe.MatchString(query)
	switch {
	case web && !local:
		return "web"
	case local && !web:
		return "local"
	}
	return "ambiguous"
}

// Decide applies the precedence of §5.8; the first rule that speaks wins:
// lean → off; local_only → off (even with --shortlist on); the request or
// session override; the plain-query helper's choice (general.interface_model,
// §5.1 step 3: it stands in for an override, so it beats the settings
// below); research with a local corpus → intent policy; the
// model's source_shortlist_enabled; general.shortlist_enabled;
// source_shortlist.enabled with the per-mode flag.
func Decide(p PolicyInput) Decision {
	ov := strings.ToLower(strings.TrimSpace(p.Override))
	if p.Lean {
		r := "off: lean mode"
		if ov == "on" {
			r += " (overrides --shortlist on)"
		}
		return Decision{Reason: r}
	}
	if p.LocalOnly {
		r := "off: research_source_mode is local_only"
		if ov == "on" {
			r += " (overrides --shortlist on)"
		}
		return Decision{Reason: r}
	}
	switch ov {
	case "on":
		return Decision{Enabled: true, Reason: "on: --shortlist on (request or session)"}
	case "off":
		return Decision{Reason: "off: --shortlist off (request or session)"}
	}
	if p.Helper != nil {
		return Decision{Enabled: *p.Helper, Reason: onOff(*p.Helper) + ": interface model (plain-query helper)"}
	}
	if p.Research && p.HasLocalCorpus {
		switch in := Intent(p.Query); in {
		case "web":
			return Decision{Enabled: true, Intent: in, Reason: "on: research question asks for the web"}
		case "local":
			return Decision{Intent: in, Reason: "off: research question is about the local corpus"}
		default:
			if p.AskIntent != nil {
				if web, ok := p.AskIntent(p.Query); ok {
					if web {
						return Decision{Enabled: true, Intent: in, Reason: "on: interface model chose the web for an ambiguous question"}
					}
					return Decision{Intent: in, Reason: "off: interface model chose the local corpus for an ambiguous question"}
				}
			}
			return Decision{Intent: in, Reason: "off: research question over a local corpus is ambiguous"}
		}
	}
	if p.ModelFlag != nil {
		return Decision{Enabled: *p.ModelFlag, Reason: onOff(*p.ModelFlag) + ": model source_shortlist_enabled"}
	}
	if p.GeneralFlag != nil {
		return Decision{Enabled: *p.GeneralFlag, Reason: onOff(*p.GeneralFlag) + ": general.shortlist_enabled"}
	}
	if !p.Enabled {
		return Decision{Reason: "off: research.source_shortlist.enabled is false"}
	}
	if p.Research {
		return Decision{Enabled: p.EnableResearchMode, Reason: onOff(p.EnableResearchMode) + ": research.source_shortlist.enable_research_mode"}
	}
	return Decision{Enabled: p.EnableStandardMode, Reason: onOff(p.EnableStandardMode) + ": research.source_shortlist.enable_standard_mode"}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
