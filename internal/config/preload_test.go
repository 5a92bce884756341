package config

import (
	"strings"
	"testing"
)

func TestResearchPreloadKeys(t *testing.T) {
	no, yes := false, true
	for _, tc := range []struct {
		name      string
		r         Research
		enabled   bool
		mode      string
		subs, ev  int
		wantError string
	}{
		{name: "defaults", r: Defaults().Research, enabled: true, mode: "deterministic", subs: 4, ev: 10},
		{name: "research keys", r: Research{QueryExpansionEnabled: &no, QueryExpansionMode: "llm", MaxSubQueries: 2, EvidenceExtractionMaxChunks: 3},
			enabled: false, mode: "llm", subs: 2, ev: 3},
		{name: "shortlist table wins", r: Research{QueryExpansionEnabled: &no, MaxSubQueries: 2,
			SourceShortlist: SourceShortlist{QueryExpansionEnabled: &yes, QueryExpansionMode: "llm", MaxSubQueries: 3}},
			enabled: true, mode: "llm", subs: 3, ev: 10},
		{name: "bad mode", r: Research{QueryExpansionMode: "smart"}, wantError: "query_expansion_mode"},
		{name: "negative", r: Research{MaxSubQueries: -1}, wantError: "max_sub_queries"},
		{name: "over the cap", r: Research{EvidenceExtractionMaxChunks: 11}, wantError: "evidence_extraction_max_chunks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, msg := tc.r.validatePreload()
			if tc.wantError != "" {
				if k != tc.wantError || msg == "" {
					t.Fatalf("got %q %q", k, msg)
				}
				return
			}
			if k != "" {
				t.Fatalf("%s: %s", k, msg)
			}
			if tc.r.ExpansionEnabled() != tc.enabled || tc.r.ExpansionMode() != tc.mode || tc.r.SubQueryLimit() != tc.subs || tc.r.EvidenceChunks() != tc.ev {
				t.Errorf("got %v %s %d %d", tc.r.ExpansionEnabled(), tc.r.ExpansionMode(), tc.r.SubQueryLimit(), tc.r.EvidenceChunks())
			}
		})
	}
	// Loaded from a file, a bad value names the key.
	_, getenv := home(t, map[string]string{"config.toml": "[research]\nquery_expansion_mode = \"smart\"\n"})
	if _, err := Load(getenv); err == nil || !strings.Contains(err.Error(), "research.query_expansion_mode") {
		t.Fatalf("err %v", err)
	}
}
