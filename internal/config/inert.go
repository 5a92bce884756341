package config

import (
	"strings"

	"github.com/BurntSushi/toml"
)

// inertKeys are the original asky's keys this version reads without
// acting on them. Set to their default they change nothing either way, so
// an original config copied over stays quiet; set to anything else they
// would be silently ignored, so that is said.
var inertKeys = []struct {
	key     string // dotted; * is any model alias
	changed func(c, d *Config, k toml.Key) bool
}{
	{"general.compact_banner", func(c, _ *Config, _ toml.Key) bool { return c.General.CompactBanner }},
	{"models.*.image_support", func(c, _ *Config, k toml.Key) bool { return c.Models[k[1]].ImageSupport }},
	{"research.allow_absolute_paths_outside_roots", func(c, _ *Config, _ toml.Key) bool { return c.Research.AllowAbsolutePathsOutsideRoots }},
	{"research.max_links_per_url", func(c, d *Config, _ toml.Key) bool { return c.Research.MaxLinksPerURL != d.Research.MaxLinksPerURL }},
	{"research.max_relevant_links", func(c, d *Config, _ toml.Key) bool { return c.Research.MaxRelevantLinks != d.Research.MaxRelevantLinks }},
	{"research.memory_max_results", func(c, d *Config, _ toml.Key) bool { return c.Research.MemoryMaxResults != d.Research.MemoryMaxResults }},
	{"summarizer.lazy_threshold_chars", func(c, d *Config, _ toml.Key) bool {
		return c.Summarizer.LazyThresholdChars != d.Summarizer.LazyThresholdChars
	}},
}

// inertDiagnostics warns about the inert keys p sets to a non-default value.
func (p *parsed) inertDiagnostics() {
	d := Defaults()
	for _, k := range p.keys {
		for _, in := range inertKeys {
			if matchKey(in.key, k) && in.changed(p.probe, d, k) {
				p.diags = append(p.diags, Diagnostic{File: p.file, Key: formatKey(k), Message: "kept from the original asky; this version has no such feature, so the value changes nothing (remove it)"})
			}
		}
	}
}

func matchKey(pattern string, k toml.Key) bool {
	parts := strings.Split(pattern, ".")
	if len(parts) != len(k) {
		return false
	}
	for i, p := range parts {
		if p != "*" && p != k[i] {
			return false
		}
	}
	return true
}
