package config

import (
	"errors"
	"strings"
	"testing"
)

func TestLoadSourceShortlist(t *testing.T) {
	// The original's bundled research.toml keys, including the query
	// expansion keys it (mis)places in this table, plus the new budget.
	_, getenv := home(t, map[string]string{"research.toml": `[research.source_shortlist]
enabled = true
enable_standard_mode = true
search_with_seed_urls = true
max_fetch_urls = 12
top_k = 5
same_domain_bonus = 0.07
budget_seconds = 4
query_expansion_enabled = false
query_expansion_mode = "llm"
max_sub_queries = 3
`, "config.toml": "[query_classification]\naggressive_mode = true\none_shot_document_threshold = 7\n"})
	cfg, err := Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %v", cfg.Diagnostics)
	}
	s := cfg.Research.SourceShortlist
	if !s.EnableStandardMode || !s.SearchWithSeedURLs || s.MaxFetchURLs != 12 || s.TopK != 5 || s.SameDomainBonus != 0.07 ||
		s.BudgetSeconds != 4 || s.QueryExpansionEnabled == nil || *s.QueryExpansionEnabled || s.QueryExpansionMode != "llm" || s.MaxSubQueries != 3 {
		t.Fatalf("source_shortlist = %+v", s)
	}
	// Unset keys keep their defaults.
	if s.SeedLinkMaxPages != 3 || s.MinContentChars != 300 || s.NoisePathPenalty != 0.15 || !s.EnableResearchMode {
		t.Fatalf("defaults lost: %+v", s)
	}
	q := cfg.QueryClassification
	if !q.Enabled || !q.AggressiveMode || q.OneShotDocumentThreshold != 7 || q.AggressiveDocumentThreshold != 20 {
		t.Fatalf("query_classification = %+v", q)
	}
}

func TestLoadSourceShortlistInvalid(t *testing.T) {
	for body, key := range map[string]string{
		"[research.source_shortlist]\ntop_k = -1\n":                   "research.source_shortlist.top_k",
		"[research.source_shortlist]\nnoise_path_penalty = -0.1\n":    "research.source_shortlist.noise_path_penalty",
		"[research.source_shortlist]\nbudget_seconds = 0\n":           "research.source_shortlist.budget_seconds",
		"[research.source_shortlist]\nquery_expansion_mode = \"x\"\n": "research.source_shortlist.query_expansion_mode",
		"[query_classification]\none_shot_document_threshold = -2\n":  "query_classification.one_shot_document_threshold",
	} {
		_, getenv := home(t, map[string]string{"config.toml": body})
		_, err := Load(getenv)
		var ve *ValueError
		if !errors.As(err, &ve) || ve.Key != key {
			t.Errorf("%q: err = %v, want a ValueError on %s", body, err, key)
		}
	}
	_, getenv := home(t, map[string]string{"config.toml": "[research.source_shortlist]\ntop_kk = 3\n"})
	cfg, err := Load(getenv)
	if err != nil || len(cfg.Diagnostics) != 1 || !strings.Contains(cfg.Diagnostics[0].String(), `did you mean "research.source_shortlist.top_k"`) {
		t.Fatalf("typo not reported: %v %v", err, cfg.Diagnostics)
	}
}

func TestQueryExpansionSettings(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		enabled    bool
		mode       string
		max        int
	}{
		{"defaults", "", true, "deterministic", 4},
		{"research table", "[research]\nquery_expansion_enabled = false\nquery_expansion_mode = \"llm\"\nmax_sub_queries = 2\n", false, "llm", 2},
		{"shortlist table wins", "[research]\nquery_expansion_mode = \"llm\"\nmax_sub_queries = 2\n[research.source_shortlist]\nquery_expansion_mode = \"deterministic\"\nmax_sub_queries = 3\n", true, "deterministic", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, getenv := home(t, map[string]string{"research.toml": tc.body})
			cfg, err := Load(getenv)
			if err != nil || len(cfg.Diagnostics) != 0 {
				t.Fatal(err, cfg.Diagnostics)
			}
			e, m, n := cfg.Research.QueryExpansion()
			if e != tc.enabled || m != tc.mode || n != tc.max {
				t.Fatalf("QueryExpansion = %v %q %d", e, m, n)
			}
		})
	}
	_, getenv := home(t, map[string]string{"research.toml": "[research]\nmax_sub_queries = -1\n"})
	var ve *ValueError
	if _, err := Load(getenv); !errors.As(err, &ve) || ve.Key != "research.max_sub_queries" {
		t.Fatalf("err = %v", err)
	}
}
