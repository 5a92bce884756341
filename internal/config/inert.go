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
	{"research.enabled", func(c, _ *Config, _ toml.Key) bool { return !c.Research.Enabled }},
	{"research.allow_absolute_paths_outside_roots", func(c, _ *Config, _ toml.Key) bool { return c.Research.AllowAbsolutePathsOutsideRoots }},
	{"research.max_links_per_url", func(c, d *Config, _ toml.Key) bool { return c.Research.MaxLinksPerURL != d.Research.MaxLinksPerURL }},
	{"research.max_relevant_links", func(c, d *Config, _ toml.Key) bool { return c.Research.MaxRelevantLinks != d.Research.MaxRelevantLinks }},
	{"research.memory_max_results", func(c, d *Config, _ toml.Key) bool { return c.Research.MemoryMaxResults != d.Research.MemoryMaxResults }},
}

// originalKeys are the original asky's keys with no field here (logging,
// the XMPP interface planner, Chroma, image models): its bundled files set them,
// so they are accepted quietly at the original's default, and said to
// change nothing when set to anything else.
var originalKeys = map[string]any{
	"general.truncate_messages_in_logs":                true,
	"general.log_level":                                "INFO",
	"general.log_file":                                 "~/.config/asky/logs/asky.log",
	"general.continue_query_threshold":                 int64(160),
	"general.default_image_model":                      "",
	"general.live_screen_mode":                         false,
	"xmpp.interface_planner_include_command_reference": true,
	"xmpp.transcript_max_per_session":                  int64(200),
	"research.summarization_workers":                   int64(2),
	"research.chromadb.persist_directory":              "~/.config/asky/chromadb",
	"research.chromadb.chunks_collection":              "asky_content_chunks",
	"research.chromadb.links_collection":               "asky_link_embeddings",
	"research.chromadb.findings_collection":            "asky_research_findings",
	"research.embedding.device":                        "cpu",
	"research.embedding.normalize":                     true,
	"research.embedding.local_files_only":              false,
	"memory.chroma_collection":                         "asky_user_memories",
}

const inertMessage = "kept from the original asky; this version has no such feature, so the value changes nothing (remove it)"

// inertDiagnostics warns about the inert keys p sets to a non-default value.
func (p *parsed) inertDiagnostics() {
	d := Defaults()
	var tree map[string]any
	for _, k := range p.keys {
		for _, in := range inertKeys {
			if matchKey(in.key, k) && in.changed(p.probe, d, k) {
				p.diags = append(p.diags, Diagnostic{File: p.file, Key: formatKey(k), Message: inertMessage})
			}
		}
		def, ok := originalKeys[strings.Join(k, ".")]
		if !ok {
			continue
		}
		if tree == nil {
			if tree, _ = p.tree(); tree == nil {
				return
			}
		}
		if v, found := lookup(tree, k); found && v != def {
			p.diags = append(p.diags, Diagnostic{File: p.file, Key: formatKey(k), Message: inertMessage})
		}
	}
}

// lookup returns the value at key k of a parsed TOML tree.
func lookup(tree map[string]any, k toml.Key) (any, bool) {
	for i, part := range k {
		v, ok := tree[part]
		if !ok || i == len(k)-1 {
			return v, ok
		}
		if tree, ok = v.(map[string]any); !ok {
			return nil, false
		}
	}
	return nil, false
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
