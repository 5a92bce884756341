package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// The schema is the Config struct itself: its toml tags name the known keys.
// Walking it by reflection keeps unknown-key warnings, `config get` and
// `config set` in step with the struct without a second list to maintain.

// KeyError reports a dotted key that the configuration does not have.
type KeyError struct {
	Key        string
	Suggestion string // closest known key, "" when nothing is close
	Reason     string // why, when the key exists but cannot be used this way
}

func (e *KeyError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("%s: %s", e.Key, e.Reason)
	}
	if e.Suggestion != "" {
		return fmt.Sprintf("unknown config key %q (did you mean %q?)", e.Key, e.Suggestion)
	}
	return fmt.Sprintf("unknown config key %q", e.Key)
}

// Hint points at the command that lists the keys.
func (e *KeyError) Hint() string {
	return "see the keys and their current values with `asky config show`"
}

var configType = reflect.TypeFor[Config]()

// schemaType returns the Go type stored at the dotted path, or a KeyError
// with a did-you-mean suggestion. Map levels accept any name; values under
// map[string]any (parameters, prompts, xmpp, …) are free-form.
func schemaType(path []string) (reflect.Type, error) {
	t := configType
	for i, seg := range path {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Struct:
			f, ok := fieldByTag(t, seg)
			if !ok {
				return nil, &KeyError{Key: strings.Join(path, "."), Suggestion: suggestPath(path, i, suggest(path[:i], seg, tagNames(t)))}
			}
			t = f.Type
		case reflect.Map:
			t = t.Elem()
		case reflect.Interface:
			return t, nil
		default:
			return nil, &KeyError{Key: strings.Join(path, "."), Reason: fmt.Sprintf("%s is a value, not a table", strings.Join(path[:i], "."))}
		}
	}
	return t, nil
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if tagName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func tagName(f reflect.StructField) string {
	tag := f.Tag.Get("toml")
	if tag == "" || tag == "-" || !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	return name
}

func tagNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if n := tagName(t.Field(i)); n != "" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// suggestPath extends a suggestion for a mistyped table (segment i) to the
// whole key when the rest of the path exists under the corrected table, so
// `genral.default_model` suggests "general.default_model", not "general".
func suggestPath(path []string, i int, s string) string {
	if s == "" || i == len(path)-1 {
		return s
	}
	fixed := append(strings.Split(s, "."), path[i+1:]...)
	if _, err := schemaType(fixed); err != nil {
		return s
	}
	return strings.Join(fixed, ".")
}

// suggest returns the dotted key closest to name among candidates, when it
// is close enough to be a likely typo.
func suggest(parent []string, name string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := levenshtein(strings.ToLower(name), c); d < bestD {
			best, bestD = c, d
		}
	}
	limit := 2
	if len(name) <= 4 {
		limit = 1
	}
	if best == "" || bestD > limit {
		// A prefix match catches "max" → "max_turns" style truncations.
		for _, c := range candidates {
			if len(name) >= 4 && strings.HasPrefix(c, strings.ToLower(name)) {
				return strings.Join(append(append([]string{}, parent...), c), ".")
			}
		}
		return ""
	}
	return strings.Join(append(append([]string{}, parent...), best), ".")
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// SplitKey splits a dotted key ("models.gpt-4o.context_size"); quoted
// segments may contain dots (`models."gpt-4.1".id`).
func SplitKey(key string) ([]string, error) {
	path, ok := parseKeyPath(key)
	if !ok || len(path) == 0 {
		return nil, &KeyError{Key: key, Reason: "not a valid dotted key"}
	}
	return path, nil
}

// JoinKey is SplitKey's inverse: a dotted key with the segments that are
// not bare quoted.
func JoinKey(path []string) string { return formatKey(path) }

// caseMismatch reports a key that names a known field with different
// letter case (Max_Turns). The TOML decoder matches struct fields
// case-insensitively, so such a key would silently take effect, and two
// spellings of one key would race; the original asky ignored them. The
// corrected key is returned.
func caseMismatch(path []string) (string, bool) {
	t := configType
	fixed := append([]string{}, path...)
	bad := false
	for i, seg := range path {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Struct:
			if f, ok := fieldByTag(t, seg); ok {
				t = f.Type
				continue
			}
			for j := range t.NumField() {
				f := t.Field(j)
				if n := tagName(f); n != "" && strings.EqualFold(n, seg) {
					fixed[i], t, bad = n, f.Type, true
					break
				}
			}
			if fixed[i] == seg {
				return "", false // unknown: reported as such elsewhere
			}
		case reflect.Map:
			t = t.Elem()
		default:
			return formatKey(fixed), bad
		}
	}
	return formatKey(fixed), bad
}
