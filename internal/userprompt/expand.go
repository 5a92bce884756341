// Package userprompt expands what a user types before it becomes a
// question: /alias prompts from [user_prompts] and \name command presets
// from [command_presets]. It is pure text logic; reading the clipboard and
// files is injected.
package userprompt

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDepth bounds recursive /alias expansion unless Expander.MaxDepth
// says otherwise ([limits] query_expansion_max_depth).
const MaxDepth = 5

// Expander expands /alias references in a question.
type Expander struct {
	Prompts map[string]string
	// Home confines file:// prompts; MaxFileSize caps them (bytes).
	Home        string
	MaxFileSize int
	// Clipboard reads the clipboard for /cp; nil disables /cp.
	Clipboard func() (string, error)
	// ReadFile reads prompt files; nil means os.ReadFile.
	ReadFile func(string) ([]byte, error)
	// MaxDepth bounds the rounds of recursive expansion; 0 means the
	// package's MaxDepth.
	MaxDepth int
}

var aliasRef = regexp.MustCompile(`(^|\s)/([A-Za-z0-9_][A-Za-z0-9_.-]*)(\s|$)`)

// Expand replaces every /key (a known prompt key or /cp, standing alone as
// a word) with its text, recursively up to e.MaxDepth rounds. Problems with one
// prompt (a bad file, an empty clipboard) are returned as warnings and the
// reference is left as typed.
func (e *Expander) Expand(q string) (string, []string) {
	var warnings []string
	warned := map[string]bool{}
	rounds := e.MaxDepth
	if rounds <= 0 {
		rounds = MaxDepth
	}
	for depth := 0; depth < rounds; depth++ {
		changed := false
		q = replaceRefs(q, func(key string) (string, bool) {
			text, ok, warn := e.lookup(key)
			if warn != "" && !warned[key] {
				warned[key] = true
				warnings = append(warnings, warn)
			}
			if ok {
				changed = true
			}
			return text, ok
		})
		if !changed {
			break
		}
	}
	return q, warnings
}

// replaceRefs substitutes alias references; fn returns the text and
// whether to replace.
func replaceRefs(q string, fn func(key string) (string, bool)) string {
	var b strings.Builder
	last := 0
	// Matches can share the separating space, so scan repeatedly from the
	// end of each key rather than with ReplaceAll.
	for pos := 0; pos < len(q); {
		loc := aliasRef.FindStringSubmatchIndex(q[pos:])
		if loc == nil {
			break
		}
		keyStart, keyEnd := pos+loc[4], pos+loc[5]
		if text, ok := fn(q[keyStart:keyEnd]); ok {
			b.WriteString(q[last : keyStart-1])
			b.WriteString(text)
			last = keyEnd
		}
		pos = keyEnd
	}
	b.WriteString(q[last:])
	return b.String()
}

func (e *Expander) lookup(key string) (string, bool, string) {
	if key == "cp" {
		if _, defined := e.Prompts["cp"]; !defined {
			if e.Clipboard == nil {
				return "", false, ""
			}
			text, err := e.Clipboard()
			if err != nil {
				return "", false, "/cp: cannot read the clipboard: " + err.Error()
			}
			if strings.TrimSpace(text) == "" {
				return "", false, "/cp: the clipboard is empty"
			}
			return text, true, ""
		}
	}
	v, ok := e.Prompts[key]
	if !ok {
		return "", false, ""
	}
	if path, isFile := strings.CutPrefix(v, "file://"); isFile {
		text, err := e.loadFile(path)
		if err != nil {
			return "", false, fmt.Sprintf("/%s: %v; left unexpanded", key, err)
		}
		return text, true, ""
	}
	return v, true, ""
}

// loadFile reads a file:// prompt: it must resolve under Home (after
// symlinks), exist, be non-empty, at most MaxFileSize bytes and UTF-8.
func (e *Expander) loadFile(path string) (string, error) {
	if strings.HasPrefix(path, "~/") {
		path = filepath.Join(e.Home, path[2:])
	}
	if e.Home == "" {
		return "", fmt.Errorf("prompt files need a home directory")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("prompt file %s does not exist", path)
	}
	home, err := filepath.EvalSymlinks(e.Home)
	if err != nil {
		home = e.Home
	}
	if rel, err := filepath.Rel(home, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("prompt file %s is outside your home directory", path)
	}
	limit := e.MaxFileSize
	if limit <= 0 {
		limit = 10240
	}
	if fi, err := os.Stat(real); err == nil && fi.Size() > int64(limit) {
		return "", fmt.Errorf("prompt file %s is larger than %d bytes", path, limit)
	}
	read := e.ReadFile
	if read == nil {
		read = os.ReadFile
	}
	data, err := read(real)
	if err != nil {
		return "", err
	}
	if len(data) > limit {
		return "", fmt.Errorf("prompt file %s is larger than %d bytes", path, limit)
	}
	if !utf8.Valid(data) {
		return "", fmt.Errorf("prompt file %s is not UTF-8 text", path)
	}
	text := strings.TrimSpace(string(data))
	if text == "" {
		return "", fmt.Errorf("prompt file %s is empty", path)
	}
	return text, nil
}

var loneKey = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_-]*$`)

// Lone reports whether q is only "/" or "/word" naming no prompt: the user
// is looking for a prompt, not asking. It returns the typed prefix. With no
// prompts configured only "/" counts, so a question like "/tmp" still asks.
func (e *Expander) Lone(q string) (prefix string, ok bool) {
	q = strings.TrimSpace(q)
	if q == "/" {
		return "", true
	}
	key, ok := strings.CutPrefix(q, "/")
	if !ok || !loneKey.MatchString(key) {
		return "", false
	}
	if _, known := e.Prompts[key]; known || key == "cp" || len(e.Prompts) == 0 {
		return "", false
	}
	return key, true
}

// Matching lists prompt keys starting with prefix, sorted.
func Matching(prompts map[string]string, prefix string) []string {
	var out []string
	for k := range prompts {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// UnknownPresetError names a preset that is not configured.
type UnknownPresetError struct{ Name string }

func (e *UnknownPresetError) Error() string { return fmt.Sprintf("unknown preset %q", e.Name) }

// Hint names the listing.
func (e *UnknownPresetError) Hint() string {
	return `list presets with asky '\presets' or asky prompts list`
}

var argRef = regexp.MustCompile(`\$(\*|[1-9])`)

// ExpandPreset expands a command preset: words[0] is `\name`; $1..$9 are
// the following words, $* all of them; words no placeholder used are
// appended. The result is split into tokens again (it may hold flags).
// Presets do not expand recursively.
func ExpandPreset(presets map[string]string, words []string) ([]string, error) {
	name := strings.TrimPrefix(words[0], `\`)
	tmpl, ok := presets[name]
	if !ok {
		return nil, &UnknownPresetError{Name: name}
	}
	args := words[1:]
	used := make([]bool, len(args))
	all := false
	out := argRef.ReplaceAllStringFunc(tmpl, func(m string) string {
		if m == "$*" {
			all = true
			return strings.Join(args, " ")
		}
		i, _ := strconv.Atoi(m[1:])
		if i > len(args) {
			return ""
		}
		used[i-1] = true
		return args[i-1]
	})
	tokens := SplitArgs(out)
	if !all {
		for i, a := range args {
			if !used[i] {
				tokens = append(tokens, a)
			}
		}
	}
	return tokens, nil
}

// SplitArgs splits a preset into words, honouring single and double quotes.
func SplitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}
