package config

import (
	"fmt"
	"strings"
)

// DeepOff is the [research.deep] provider that disables the deep tier.
const DeepOff = "off"

// DeepEnabled reports whether [research.deep] names a second embedder,
// slower than the main one, whose vectors a pass fills after the fast
// ingest (research/deep.go). A deep tier naming the main embedder again
// is off: the main space already holds those vectors (a user who made
// the transformer the main embedder keeps the default deep table).
func (r Research) DeepEnabled() bool {
	d, e := r.Deep, r.Embedding
	if strings.EqualFold(d.Provider, DeepOff) {
		return false
	}
	builtin := func(p string) string {
		if p == "" {
			return "builtin"
		}
		return strings.ToLower(p)
	}
	same := builtin(d.Provider) == builtin(e.Provider) && d.Model == e.Model && d.Path == e.Path &&
		d.BaseURL == e.BaseURL && d.API == e.API && d.Dimensions == e.Dimensions &&
		d.DocumentPrefix == e.DocumentPrefix && d.QueryPrefix == e.QueryPrefix
	return !same
}

// validateDeep rejects a deep provider that does not exist.
func (r Research) validateDeep() (key, msg string) {
	switch strings.ToLower(r.Deep.Provider) {
	case DeepOff, "", "builtin", "static", "openai", "ollama":
		return "", ""
	}
	return "provider", fmt.Sprintf("must be off, builtin, static, openai or ollama, not %q", r.Deep.Provider)
}
