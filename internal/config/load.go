package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// SplitFiles are the original asky's per-topic files, merged in this order
// after config.toml so that an existing asky config directory works.
var SplitFiles = []string{"general.toml", "api.toml", "models.toml", "research.toml", "memory.toml", "user.toml", "prompts.toml", "xmpp.toml", "push_data.toml"}

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

func (e *ReadError) Error() string {
	err := e.Err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is already in the message
	}
	return fmt.Sprintf("cannot read config file %s: %v", e.File, err)
}
func (e *ReadError) Unwrap() error { return e.Err }

// Hint tells the user what to do next.
func (e *ParseError) Hint() string {
	return "fix the file and run `asky config doctor`"
}

// Hint tells the user what to do next.
func (e *ReadError) Hint() string {
	return "check the file's permissions (ls -l " + e.File + ")"
}

// ValueError is a well-formed key holding a value asky cannot use.
type ValueError struct {
	File string
	Key  string
	// Line is where the key is set (0 when unknown).
	Line    int
	Message string
}

func (e *ValueError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Message)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Key, e.Message)
}

// Hint tells the user what to do next.
func (e *ValueError) Hint() string {
	return "fix it in " + e.File + ", then run `asky config doctor`"
}

// Load reads config.toml and the split files from the config directory,
// deep-merges them over Defaults() and validates the result. A file that
// fails to parse is an error: defaults are never silently used instead.
func Load(getenv func(string) string) (*Config, error) {
	return loadWith(getenv, nil)
}

// loadWith is Load with some files' contents replaced (overlay, keyed by
// path), so that an edit can be checked before it is written.
func loadWith(getenv func(string) string, overlay map[string][]byte) (*Config, error) {
	paths := ResolvePaths(getenv)
	var files []*parsed
	// Every file is read and parsed even after one fails, so all the
	// problems are reported together (sorted by file and line).
	var errs []error
	for _, name := range append([]string{MainFile}, SplitFiles...) {
		file := filepath.Join(paths.ConfigDir, name)
		raw, ok := overlay[file]
		if !ok {
			var err error
			raw, err = os.ReadFile(file)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				errs = append(errs, &ReadError{File: file, Err: err})
				continue
			}
		}
		p, err := parseFile(file, raw)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		files = append(files, p)
	}
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	var cfg *Config
	switch len(files) {
	case 0:
		cfg = Defaults()
	case 1:
		// The common case: the file was already decoded over the defaults.
		cfg = files[0].probe
	default:
		// Several files: merge their trees table by table, then decode the
		// result once over the defaults.
		merged := map[string]any{}
		for _, p := range files {
			tree, err := p.tree()
			if err != nil {
				return nil, err
			}
			deepMerge(merged, tree)
		}
		cfg = Defaults()
		if err := decodeInto(cfg, merged); err != nil {
			return nil, err
		}
	}
	cfg.origins = map[string]string{}
	cfg.raws = map[string][]byte{}
	for _, p := range files {
		cfg.raws[p.file] = p.raw
		for _, k := range p.keys {
			// Implicit parent tables ([models] of [models.a]) count too.
			for i := 1; i <= len(k); i++ {
				cfg.origins[formatKey(k[:i])] = p.file
			}
			if len(k) == 2 && k[0] == "models" && !slices.Contains(cfg.modelOrder, k[1]) {
				cfg.modelOrder = append(cfg.modelOrder, k[1])
			}
		}
		cfg.Diagnostics = append(cfg.Diagnostics, p.diags...)
		cfg.Files = append(cfg.Files, p.file)
	}
	cfg.Paths = paths
	if v := getenv(cfg.General.DBPathEnvVar); cfg.General.DBPathEnvVar != "" && v != "" {
		cfg.Paths.DB = expandHome(v, getenv)
	} else if cfg.General.DBPath != "" {
		db := expandHome(cfg.General.DBPath, getenv)
		if !filepath.IsAbs(db) {
			db = filepath.Join(paths.ConfigDir, db)
		}
		cfg.Paths.DB = db
	}
	if strings.HasSuffix(cfg.General.MarkdownStyle, ".json") {
		cfg.General.MarkdownStyle = expandHome(cfg.General.MarkdownStyle, getenv)
	}
	if d := cfg.Memory.MarkdownDir; d != "" {
		if d = expandHome(d, getenv); !filepath.IsAbs(d) {
			d = filepath.Join(paths.ConfigDir, d)
		}
		cfg.Memory.MarkdownDir = d
	}
	cfg.normalize()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Origin returns the config file that set key (dotted, as in `config get`)
// last, or "" when the key comes from the defaults.
func (c *Config) Origin(key string) string {
	path, err := SplitKey(key)
	if err != nil {
		return ""
	}
	return c.origins[formatKey(path)]
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var bom = []byte("\xef\xbb\xbf")

// parsed is one config file decoded over the defaults.
type parsed struct {
	file  string
	raw   []byte // without a BOM
	probe *Config
	// keys are every key and table the file defines, in file order.
	keys  []toml.Key
	diags []Diagnostic
}

// tree parses the file into nested maps, for merging with other files.
func (p *parsed) tree() (map[string]any, error) {
	tree := map[string]any{}
	if _, err := toml.Decode(string(p.raw), &tree); err != nil {
		return nil, positioned(p.file, p.raw, err)
	}
	return tree, nil
}

// parseFile decodes one file over the defaults, which checks syntax and
// types in one pass, and reports unknown keys and literal secrets in
// group/world-readable files.
func parseFile(file string, raw []byte) (*parsed, error) {
	p := &parsed{file: file, raw: bytes.TrimPrefix(raw, bom), probe: Defaults()}
	md, err := toml.Decode(string(p.raw), p.probe)
	if err != nil {
		return nil, positioned(file, p.raw, err)
	}
	p.keys = md.Keys()
	var caseErrs []error
	for _, k := range p.keys {
		if fixed, bad := caseMismatch(k); bad {
			caseErrs = append(caseErrs, &ValueError{File: file, Key: formatKey(k), Line: keyLine(p.raw, k), Message: "key names are case-sensitive; write " + fixed})
		}
	}
	if len(caseErrs) > 0 {
		return nil, joinErrors(caseErrs)
	}
	var reported []toml.Key
	for _, k := range md.Undecoded() {
		if isFreeForm(k) || underAny(k, reported) {
			continue
		}
		reported = append(reported, k)
		msg := "unknown key (ignored)"
		if _, err := schemaType(k); err != nil {
			var ke *KeyError
			if errors.As(err, &ke) && ke.Suggestion != "" {
				msg = fmt.Sprintf("unknown key (ignored; did you mean %q?)", ke.Suggestion)
			}
		}
		p.diags = append(p.diags, Diagnostic{File: file, Key: formatKey(k), Message: msg})
	}
	p.inertDiagnostics()
	// Only a file with a secret-looking key needs its values looked at.
	if slices.ContainsFunc(p.keys, func(k toml.Key) bool { return isSecretName(k[len(k)-1]) }) {
		tree, err := p.tree()
		if err != nil {
			return nil, err
		}
		if key := literalSecret(tree, nil); key != "" {
			if st, err := os.Stat(file); err == nil && st.Mode().Perm()&0o077 != 0 {
				p.diags = append(p.diags, Diagnostic{File: file, Key: key, Message: fmt.Sprintf("literal secret in a file readable by others (mode %04o); run: chmod 600 %s, or use api_key_env / api_key_cmd", st.Mode().Perm(), file)})
			}
		}
	}
	return p, nil
}

func underAny(k toml.Key, prefixes []toml.Key) bool {
	for _, p := range prefixes {
		if len(k) > len(p) && equalPath(k[:len(p)], p) {
			return true
		}
	}
	return false
}

// typeErrRe matches BurntSushi's type errors, which are plain errors that
// carry only a line number in their text.
var typeErrRe = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// positioned turns a decode error into a ParseError with file:line:col.
func positioned(file string, raw []byte, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		line, col := pe.Position.Line, pe.Position.Col
		if st := pe.Position.Start; st >= 0 && st < len(raw) {
			// Recompute from the byte offset: for an error at a newline the
			// library reports the next line.
			before := raw[:st]
			line = bytes.Count(before, []byte("\n")) + 1
			col = len([]rune(string(before[bytes.LastIndexByte(before, '\n')+1:]))) + 1
		}
		if line < 1 {
			line = 1
		}
		if col < 1 {
			col = 1
		}
		msg := pe.Message
		if pe.LastKey != "" && !strings.Contains(msg, pe.LastKey) {
			msg = pe.LastKey + ": " + msg
		}
		return &ParseError{File: file, Line: line, Col: col, Message: msg}
	}
	if m := typeErrRe.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &ParseError{File: file, Line: max(line, 1), Col: valueColumn(raw, line), Message: m[2] + ": " + friendlyType(m[3])}
	}
	return &ParseError{File: file, Line: 1, Col: 1, Message: err.Error()}
}

// valueColumn finds where the value starts on a line (after '='), 1-based.
func valueColumn(raw []byte, line int) int {
	lines := strings.Split(string(raw), "\n")
	if line < 1 || line > len(lines) {
		return 1
	}
	l := lines[line-1]
	eq := keyEq(l)
	if eq < 0 {
		return 1
	}
	col := eq + 1
	for col < len(l) && (l[col] == ' ' || l[col] == '\t') {
		col++
	}
	return len([]rune(l[:col])) + 1
}

var tomlTypeRe = regexp.MustCompile(`incompatible types: TOML value has type (\S+); destination has type (\S+)`)

func friendlyType(msg string) string {
	name := func(s string) string {
		switch {
		case strings.HasPrefix(s, "int"), s == "integer":
			return "an integer"
		case strings.HasPrefix(s, "float"):
			return "a number"
		case s == "string":
			return "a string"
		case s == "bool", s == "boolean":
			return "true or false"
		case s == "slice", strings.HasPrefix(s, "[]"):
			return "an array"
		case strings.HasPrefix(s, "map"), s == "struct":
			return "a table"
		}
		return s
	}
	if m := tomlTypeRe.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("expected %s, got %s", name(m[2]), name(m[1]))
	}
	if strings.HasPrefix(msg, "type mismatch for") {
		if _, after, ok := strings.Cut(msg, ": "); ok {
			return after
		}
	}
	return msg
}

// isFreeForm reports keys under tables whose contents are open-ended.
func isFreeForm(k toml.Key) bool {
	if len(k) == 0 {
		return false
	}
	switch k[0] {
	case "xmpp":
		// Keys of the original's xmpp.toml that asky reads without using.
		return len(k) == 2 && (k[1] == "interface_planner_include_command_reference" || k[1] == "transcript_max_per_session")
	case "prompts", "daemon", "plugins", "plugin", "xmpp_client", "telegram", "http":
		return true
	case "models", "api":
		// parameters / headers are free-form maps.
		return len(k) >= 3 && (k[2] == "parameters" || k[2] == "headers")
	case "research":
		return len(k) >= 2 && (k[1] == "chromadb" || k[1] == "summarization_workers")
	case "tool":
		return len(k) >= 3 && k[2] == "parameters"
	case "push_data":
		// headers and fields are free-form maps.
		return len(k) >= 3 && (k[2] == "headers" || k[2] == "fields")
	case "general":
		// Keys the original reads that we accept without using.
		if len(k) == 2 {
			switch k[1] {
			case "truncate_messages_in_logs", "log_level", "log_file", "query_summary_max_chars", "answer_summary_max_chars",
				"continue_query_threshold", "default_image_model", "archive_dir", "live_screen_mode":
				return true
			}
		}
	case "memory":
		return len(k) == 2 && k[1] == "chroma_collection"
	}
	return false
}

// literalSecret returns the dotted key of the first literal secret in tree
// (api_key, password, token …), or "".
func literalSecret(tree map[string]any, prefix []string) string {
	for _, k := range sortedKeys(tree) {
		p := append(append([]string{}, prefix...), k)
		switch v := tree[k].(type) {
		case map[string]any:
			if key := literalSecret(v, p); key != "" {
				return key
			}
		case string:
			if v != "" && isSecretName(k) {
				return formatKey(p)
			}
		}
	}
	return ""
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
		a.BaseURL = strings.TrimRight(a.BaseURL, "/")
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
	if c.General.MaxTurns == 0 {
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
