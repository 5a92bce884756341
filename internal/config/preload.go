package config

import "fmt"

// Evidence extraction (asky-behavior.md §5.9) is configured in [research]:
// evidence_extraction_enabled (off) and evidence_extraction_max_chunks
// (10, also the cap: each chunk is one model call before the answer
// starts).

// EvidenceChunks resolves evidence_extraction_max_chunks (default 10).
func (r Research) EvidenceChunks() int {
	if n := r.EvidenceExtractionMaxChunks; n > 0 && n < 10 {
		return n
	}
	return 10
}

func (r Research) validateEvidence() (key, msg string) {
	if r.EvidenceExtractionMaxChunks < 0 || r.EvidenceExtractionMaxChunks > 10 {
		return "evidence_extraction_max_chunks", fmt.Sprintf("must be between 0 and 10, got %d", r.EvidenceExtractionMaxChunks)
	}
	return "", ""
}
