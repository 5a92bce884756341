package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// SplitFiles are the original asky's per-topic files, merged in this order
// after config.toml so that an existing asky config directory works.
var SplitFiles = []string{"general.toml", "api.toml", "models.toml", "research.toml", "memory.toml", "user.toml", "prompts.toml", "xmpp.toml"}

// MainFile is the single-file configuration most users write.
const MainFile = "config.toml"

// ParseError reports malformed TOML with its position.
type ParseError struct {
	File    string
	Line    int
	Col     int
	Message string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Message)
}

// ReadError reports a config file that exists but cannot be read.
type ReadError struct {
	File string
	Err  error
}

func (e *ReadError) Error() string { return fmt.Sprintf("read %s: %v", e.File, e.Err) }
func (e *ReadError) Unwrap() error { return e.Err }

// Load reads config.toml and the split files from the config directory,
// deep-merges them over Defaults() and validates the result. A file that
// fails to parse is an error: defaults are never silently used instead.
func Load(getenv func(string) string) (*Config, error) {
	paths := ResolvePaths(getenv)
	merged := map[string]any{}
	cfg := Defaults()
	for _, name := range append([]string{MainFile}, SplitFiles...) {
		file := filepath.Join(paths.ConfigDir, name)
		raw, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, &ReadError{File: file, Err: err}
		}
		tree, diags, err := parseFile(file, raw)
		if err != nil {
			return nil, err
		}
		cfg.Diagnostics = append(cfg.Diagnostics, diags...)
		deepMerge(merged, tree)
		cfg.Files = append(cfg.Files, file)
	}
	if err := decodeInto(cfg, merged); err != nil {
		return nil, err
	}
	cfg.Paths = paths
	if v := getenv(cfg.General.DBPathEnvVar); cfg.General.DBPathEnvVar != "" && v != "" {
		cfg.Paths.DB = expandHome(v, getenv)
	} else if cfg.General.DBPath != "" {
		cfg.Paths.DB = expandHome(cfg.General.DBPath, getenv)
	}
	cfg.normalize()
	return cfg, nil
}

// parseFile decodes one file into a generic tree and reports unknown keys
// and literal secrets in group/world-readable files.
func parseFile(file string, raw []byte) (map[string]any, []Diagnostic, error) {
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	tree := map[string]any{}
	if _, err := toml.Decode(string(raw), &tree); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, nil, &ParseError{File: file, Line: pe.Position.Line, Col: pe.Position.Col, Message: pe.Message}
		}
		return nil, nil, &ParseError{File: file, Line: 1, Col: 1, Message: err.Error()}
	}
	var diags []Diagnostic
	probe := Defaults()
	md, err := toml.Decode(string(raw), probe)
	if err != nil {
		return nil, nil, typeError(file, err)
	}
	for _, k := range md.Undecoded() {
		if isFreeForm(k) {
			continue
		}
		diags = append(diags, Diagnostic{File: file, Key: k.String(), Message: "unknown key (ignored)"})
	}
	if hasLiteralKey(tree) {
		if st, err := os.Stat(file); err == nil && st.Mode().Perm()&0o077 != 0 {
			diags = append(diags, Diagnostic{File: file, Key: "api_key", Message: fmt.Sprintf("file holds a literal api_key but is readable by others (mode %o); run: chmod 600 %s", st.Mode().Perm(), file)})
		}
	}
	return tree, diags, nil
}

func typeError(file string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &ParseError{File: file, Line: pe.Position.Line, Col: pe.Position.Col, Message: pe.Message}
	}
	return &ParseError{File: file, Line: 1, Col: 1, Message: err.Error()}
}

// isFreeForm reports keys under tables whose contents are open-ended.
func isFreeForm(k toml.Key) bool {
	if len(k) == 0 {
		return false
	}
	switch k[0] {
	case "prompts", "xmpp", "daemon", "plugins", "plugin", "push_data", "email", "query_classification", "xmpp_client", "telegram", "http":
		return true
	case "models", "api":
		// parameters / headers are free-form maps.
		return len(k) >= 3 && (k[2] == "parameters" || k[2] == "headers")
	case "research":
		return len(k) >= 2 && (k[1] == "source_shortlist" || k[1] == "chromadb" || k[1] == "query_expansion_enabled" || k[1] == "query_expansion_mode" || k[1] == "max_sub_queries" || k[1] == "evidence_extraction_enabled" || k[1] == "evidence_extraction_max_chunks" || k[1] == "summarization_workers")
	case "tool":
		return len(k) >= 3 && k[2] == "parameters"
	case "general":
		// Keys the original reads that we accept without using.
		if len(k) == 2 {
			switch k[1] {
			case "truncate_messages_in_logs", "log_level", "log_file", "query_summary_max_chars", "answer_summary_max_chars",
				"continue_query_threshold", "terminal_context_lines", "interface_model", "interface_model_plain_query_enabled",
				"interface_model_plain_query_prompt_enrichment_enabled", "default_image_model", "archive_dir", "live_screen_mode":
				return true
			}
		}
	case "memory":
		return len(k) == 2 && k[1] == "chroma_collection"
	}
	return false
}

func hasLiteralKey(tree map[string]any) bool {
	apis, _ := tree["api"].(map[string]any)
	for _, v := range apis {
		if t, ok := v.(map[string]any); ok {
			if s, ok := t["api_key"].(string); ok && s != "" {
				return true
			}
		}
	}
	return false
}

// deepMerge merges src into dst: tables merge key by key, other values
// replace.
func deepMerge(dst, src map[string]any) {
	for k, v := range src {
		if sv, ok := v.(map[string]any); ok {
			if dv, ok := dst[k].(map[string]any); ok {
				deepMerge(dv, sv)
				continue
			}
			cp := map[string]any{}
			deepMerge(cp, sv)
			dst[k] = cp
			continue
		}
		dst[k] = v
	}
}

// decodeInto applies the merged tree over cfg's defaults by re-encoding it,
// which keeps BurntSushi's type checking for the merged result.
func decodeInto(cfg *Config, tree map[string]any) error {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(tree); err != nil {
		return fmt.Errorf("merge config: %w", err)
	}
	if _, err := toml.Decode(buf.String(), cfg); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// normalize fills derived values: api base URLs from the original's full
// `url`, API types, and aliases sorted for stable output.
func (c *Config) normalize() {
	for name, a := range c.API {
		if a.BaseURL == "" && a.URL != "" {
			u := strings.TrimRight(a.URL, "/")
			switch {
			case strings.HasSuffix(u, "/chat/completions"):
				u = strings.TrimSuffix(u, "/chat/completions")
			case strings.HasSuffix(u, "/messages"):
				u = strings.TrimSuffix(u, "/messages")
				if a.Type == "" {
					a.Type = "anthropic"
				}
			}
			a.BaseURL = u
		}
		if a.Type == "" {
			a.Type = "openai"
			if strings.Contains(a.BaseURL, "api.anthropic.com") {
				a.Type = "anthropic"
			}
		}
		c.API[name] = a
	}
	if c.General.MaxTurns <= 0 {
		c.General.MaxTurns = 20
	}
}

// Aliases returns the configured model aliases, sorted.
func (c *Config) Aliases() []string {
	out := make([]string, 0, len(c.Models))
	for k := range c.Models {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
