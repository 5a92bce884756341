package config

import (
	"fmt"
	"strings"
)

// DeepOff is the [research.deep] provider that disables the deep tier.
const DeepOff = "off"

// DeepEnabled reports whether [research.deep] names an embedder: a
// second, slower one whose vectors a background pass fills after the
// fast ingest (research/deep.go).
func (r Research) DeepEnabled() bool {
	return !strings.EqualFold(r.Deep.Provider, DeepOff)
}

// validateDeep rejects a deep tier that cannot work: an unknown provider,
// or the main embedder again (it would fuse a list with itself).
func (r Research) validateDeep() (key, msg string) {
	switch strings.ToLower(r.Deep.Provider) {
	case DeepOff:
		return "", ""
	case "", "builtin", "static", "openai", "ollama":
	default:
		return "provider", fmt.Sprintf("must be off, builtin, static, openai or ollama, not %q", r.Deep.Provider)
	}
	if r.Deep == r.Embedding {
		return "provider", "names the same embedder as [research.embedding]; set provider = \"off\" or another model"
	}
	return "", ""
}
