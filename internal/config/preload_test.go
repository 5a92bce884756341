package config

import (
	"strings"
	"testing"
)

func TestEvidenceExtractionKeys(t *testing.T) {
	for _, tc := range []struct {
		chunks, want int
		wantError    bool
	}{{0, 10, false}, {3, 3, false}, {10, 10, false}, {11, 0, true}, {-1, 0, true}} {
		r := Research{EvidenceExtractionMaxChunks: tc.chunks}
		k, _ := r.validateEvidence()
		if (k != "") != tc.wantError {
			t.Errorf("%d: key %q", tc.chunks, k)
		}
		if !tc.wantError && r.EvidenceChunks() != tc.want {
			t.Errorf("%d: got %d", tc.chunks, r.EvidenceChunks())
		}
	}
	// Loaded from a file: decoded (no unknown-key warning) and validated.
	_, getenv := home(t, map[string]string{"config.toml": "[research]\nevidence_extraction_enabled = true\nevidence_extraction_max_chunks = 4\n"})
	cfg, err := Load(getenv)
	if err != nil || len(cfg.Diagnostics) != 0 || !cfg.Research.EvidenceExtractionEnabled || cfg.Research.EvidenceChunks() != 4 {
		t.Fatalf("%v %v %+v", err, cfg.Diagnostics, cfg.Research)
	}
	_, getenv = home(t, map[string]string{"config.toml": "[research]\nevidence_extraction_max_chunks = 50\n"})
	if _, err := Load(getenv); err == nil || !strings.Contains(err.Error(), "research.evidence_extraction_max_chunks") {
		t.Fatalf("err %v", err)
	}
}
