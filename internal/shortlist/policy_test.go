package shortlist

import (
	"strings"
	"testing"
)

func TestDecide(t *testing.T) {
	yes, no := true, false
	base := PolicyInput{Enabled: true, EnableResearchMode: true, EnableStandardMode: false}
	with := func(f func(*PolicyInput)) PolicyInput { p := base; f(&p); return p }
	for _, tc := range []struct {
		name   string
		in     PolicyInput
		on     bool
		reason string
	}{
		// 1. lean wins over everything.
		{"lean beats --shortlist on", with(func(p *PolicyInput) { p.Lean, p.Override = true, "on" }), false, "lean"},
		{"lean beats model flag", with(func(p *PolicyInput) { p.Lean, p.ModelFlag = true, &yes }), false, "lean"},
		// 2. local_only beats the override.
		{"local_only beats --shortlist on", with(func(p *PolicyInput) { p.LocalOnly, p.Override = true, "on" }), false, "local_only (overrides --shortlist on)"},
		{"local_only", with(func(p *PolicyInput) { p.LocalOnly, p.Research = true, true }), false, "local_only"},
		// 3. request/session override.
		{"override on beats config off", with(func(p *PolicyInput) { p.Override, p.Enabled = "on", false }), true, "--shortlist on"},
		{"override ON is case-insensitive", with(func(p *PolicyInput) { p.Override = "ON" }), true, "--shortlist on"},
		{"override off beats model on", with(func(p *PolicyInput) { p.Override, p.ModelFlag = "off", &yes }), false, "--shortlist off"},
		{"override beats intent policy", with(func(p *PolicyInput) {
			p.Override, p.Research, p.HasLocalCorpus, p.Query = "on", true, true, "summarize these documents"
		}), true, "--shortlist on"},
		// 3b. the plain-query helper, when no override was given.
		{"override beats helper", with(func(p *PolicyInput) { p.Override, p.Helper = "off", &yes }), false, "--shortlist off"},
		{"helper beats model and config", with(func(p *PolicyInput) { p.Helper, p.ModelFlag = &no, &yes }), false, "interface model"},
		{"reset falls through", with(func(p *PolicyInput) { p.Override, p.GeneralFlag = "reset", &yes }), true, "general.shortlist_enabled"},
		// 4. research + local corpus: intent policy.
		{"intent web", with(func(p *PolicyInput) {
			p.Research, p.HasLocalCorpus, p.Query, p.ModelFlag = true, true, "latest news on raft", &no
		}), true, "asks for the web"},
		{"intent local", with(func(p *PolicyInput) {
			p.Research, p.HasLocalCorpus, p.Query, p.ModelFlag = true, true, "summarize this document", &yes
		}), false, "about the local corpus"},
		{"intent ambiguous, no interface model", with(func(p *PolicyInput) {
			p.Research, p.HasLocalCorpus, p.Query, p.ModelFlag = true, true, "how does raft elect a leader", &yes
		}), false, "ambiguous"},
		{"intent both words is ambiguous", with(func(p *PolicyInput) {
			p.Research, p.HasLocalCorpus, p.Query = true, true, "compare these documents with the latest news"
		}), false, "ambiguous"},
		{"intent ambiguous, interface model says web", with(func(p *PolicyInput) {
			p.Research, p.HasLocalCorpus, p.Query = true, true, "how does raft elect a leader"
			p.AskIntent = func(string) (bool, bool) { return true, true }
		}), true, "interface model chose the web"},
		{"intent ambiguous, interface model says local", with(func(p *PolicyInput) {
			p.Research, p.HasLocalCorpus, p.Query = true, true, "how does raft elect a leader"
			p.AskIntent = func(string) (bool, bool) { return false, true }
		}), false, "interface model chose the local corpus"},
		{"intent ambiguous, interface model fails", with(func(p *PolicyInput) {
			p.Research, p.HasLocalCorpus, p.Query = true, true, "how does raft elect a leader"
			p.AskIntent = func(string) (bool, bool) { return true, false }
		}), false, "ambiguous"},
		{"no corpus skips intent", with(func(p *PolicyInput) { p.Research, p.Query = true, "summarize this document" }), true, "enable_research_mode"},
		{"standard mode skips intent", with(func(p *PolicyInput) { p.HasLocalCorpus, p.Query = true, "latest news" }), false, "enable_standard_mode"},
		// 5. model flag.
		{"model on beats general off", with(func(p *PolicyInput) { p.ModelFlag, p.GeneralFlag = &yes, &no }), true, "model source_shortlist_enabled"},
		{"model off beats config on", with(func(p *PolicyInput) { p.ModelFlag, p.Research = &no, true }), false, "model source_shortlist_enabled"},
		// 6. general.shortlist_enabled.
		{"general on beats config off", with(func(p *PolicyInput) { p.GeneralFlag, p.Enabled = &yes, false }), true, "general.shortlist_enabled"},
		{"general off beats research mode on", with(func(p *PolicyInput) { p.GeneralFlag, p.Research = &no, true }), false, "general.shortlist_enabled"},
		// 7. source_shortlist.enabled + per-mode flags.
		{"disabled", with(func(p *PolicyInput) { p.Enabled, p.Research = false, true }), false, "enabled is false"},
		{"research mode on", with(func(p *PolicyInput) { p.Research = true }), true, "enable_research_mode"},
		{"research mode off", with(func(p *PolicyInput) { p.Research, p.EnableResearchMode = true, false }), false, "enable_research_mode"},
		{"standard mode off (default)", base, false, "enable_standard_mode"},
		{"standard mode on", with(func(p *PolicyInput) { p.EnableStandardMode = true }), true, "enable_standard_mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(tc.in)
			if d.Enabled != tc.on || !strings.Contains(d.Reason, tc.reason) {
				t.Fatalf("Decide = %+v; want enabled=%v reason ~ %q", d, tc.on, tc.reason)
			}
			if want := map[bool]string{true: "on: ", false: "off: "}[tc.on]; !strings.HasPrefix(d.Reason, want) {
				t.Errorf("reason %q should start with %q", d.Reason, want)
			}
		})
	}
}

func TestIntent(t *testing.T) {
	for q, want := range map[string]string{
		"what is the weather in Paris now":       "web",
		"search google for raft papers":          "web",
		"check https://example.com":              "web",
		"summarize my files":                     "local",
		"what do these documents say about raft": "local",
		"list the csv columns":                   "local",
		"what is said here":                      "local",
		"how does raft work":                     "ambiguous",
		"latest figures in the pdf":              "ambiguous",
		"newsletter filed under nowhere":         "ambiguous", // word boundaries: not news/file/now
	} {
		if got := Intent(q); got != want {
			t.Errorf("Intent(%q) = %s, want %s", q, got, want)
		}
	}
}
