package config

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Errors is every problem found in the config files at once, sorted by
// file and line, so that fixing them is one edit, not one run per error.
type Errors []error

func (e Errors) Error() string {
	lines := make([]string, len(e))
	for i, err := range e {
		lines[i] = err.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As find each problem.
func (e Errors) Unwrap() []error { return e }

// Hint is the first problem's hint.
func (e Errors) Hint() string {
	var h interface{ Hint() string }
	if len(e) > 0 && errors.As(e[0], &h) {
		return h.Hint()
	}
	return ""
}

// Messages lists the problems one per line (the CLI prints each).
func (e Errors) Messages() []string {
	out := make([]string, len(e))
	for i, err := range e {
		out[i] = err.Error()
	}
	return out
}

// errorPos is where an error points, for sorting: file, then line (0, an
// unknown line, sorts after the known ones of the same file).
func errorPos(err error) (string, int) {
	var pe *ParseError
	var ve *ValueError
	var re *ReadError
	switch {
	case errors.As(err, &pe):
		return pe.File, pe.Line
	case errors.As(err, &ve):
		return ve.File, ve.Line
	case errors.As(err, &re):
		return re.File, 0
	}
	return "", 0
}

// joinErrors returns nil, the only error, or Errors sorted by position.
func joinErrors(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	sort.SliceStable(errs, func(i, j int) bool {
		fi, li := errorPos(errs[i])
		fj, lj := errorPos(errs[j])
		if fi != fj {
			return fi < fj
		}
		if (li == 0) != (lj == 0) {
			return lj == 0
		}
		return li < lj
	})
	return Errors(errs)
}

// negativeValues reports every number in the config that is below zero:
// counts, sizes, timeouts, weights and prices are never negative, and a
// negative one was silently treated as "default" or "unlimited" before.
func (c *Config) negativeValues() []error {
	var errs []error
	var walk func(v reflect.Value, path []string)
	walk = func(v reflect.Value, path []string) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case reflect.Struct:
			t := v.Type()
			for i := range t.NumField() {
				f := t.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
				if !f.IsExported() || name == "" || name == "-" {
					continue
				}
				walk(v.Field(i), append(path, name))
			}
		case reflect.Map:
			if v.Type().Key().Kind() != reflect.String {
				return
			}
			keys := v.MapKeys()
			sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
			for _, k := range keys {
				walk(v.MapIndex(k), append(path, k.String()))
			}
		case reflect.Int, reflect.Int64, reflect.Int32:
			if v.Int() < 0 {
				errs = append(errs, c.negativeError(path, strconv.FormatInt(v.Int(), 10)))
			}
		case reflect.Float64, reflect.Float32:
			if v.Float() < 0 {
				errs = append(errs, c.negativeError(path, strconv.FormatFloat(v.Float(), 'g', -1, 64)))
			}
		}
	}
	walk(reflect.ValueOf(c).Elem(), nil)
	return errs
}

func (c *Config) negativeError(path []string, got string) error {
	key := formatKey(path)
	return &ValueError{File: c.origins[key], Key: key, Line: c.keyLine(path), Message: "must not be negative, got " + got}
}

// keyLine finds the line that sets key in the file it came from (0 when
// it cannot tell).
func (c *Config) keyLine(path []string) int {
	file := c.origins[formatKey(path)]
	if raw, ok := c.raws[file]; ok {
		return keyLine(raw, path)
	}
	return 0
}

// keyLine returns the 1-based line of raw that sets key: a "k = …" line
// under the [table] holding it, or a dotted "a.k = …" line.
func keyLine(raw []byte, key toml.Key) int {
	var table []string
	for i, l := range bytes.Split(raw, []byte("\n")) {
		s := strings.TrimSpace(string(l))
		if strings.HasPrefix(s, "[") {
			h := strings.Trim(strings.TrimSpace(strings.SplitN(s, "#", 2)[0]), "[]")
			table = splitDotted(h)
			continue
		}
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			continue
		}
		full := append(append([]string{}, table...), splitDotted(s[:eq])...)
		if equalPath(full, key) {
			return i + 1
		}
	}
	return 0
}

func splitDotted(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ".") {
		out = append(out, strings.Trim(strings.TrimSpace(p), `"'`))
	}
	return out
}

// validate rejects values that parse but cannot work, all of them at once.
func (c *Config) validate() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(c.validateMarkdownStyle())
	add(c.XMPP.validate(func(k string) string { return c.origins[k] }))
	for _, name := range sortedKeys(c.API) {
		a := c.API[name]
		if a.Type != "openai" && a.Type != "anthropic" {
			path := []string{"api", name, "type"}
			key := formatKey(path)
			errs = append(errs, &ValueError{File: c.origins[key], Key: key, Line: c.keyLine(path),
				Message: fmt.Sprintf("type must be \"openai\" or \"anthropic\", not %q", a.Type)})
		}
		key := "api." + name + ".base_url"
		if _, ok := c.origins[key]; !ok && a.URL != "" {
			key = "api." + name + ".url"
		}
		add(c.checkBaseURL(key, a.BaseURL))
	}
	for _, alias := range sortedKeys(c.Models) {
		add(c.checkBaseURL("models."+alias+".base_url", c.Models[alias].BaseURL))
	}
	// The typed tables' own checks name the offending key inside them.
	type check struct {
		table  []string
		k, msg string
	}
	var checks []check
	k, msg := c.Research.SourceShortlist.validate()
	checks = append(checks, check{[]string{"research", "source_shortlist"}, k, msg})
	k, msg = (SourceShortlist{BudgetSeconds: 1, QueryExpansionMode: c.Research.QueryExpansionMode, MaxSubQueries: c.Research.MaxSubQueries}).validate()
	checks = append(checks, check{[]string{"research"}, k, msg})
	k, msg = c.Research.validateEvidence()
	checks = append(checks, check{[]string{"research"}, k, msg})
	k, msg = c.Research.validateDeep()
	checks = append(checks, check{[]string{"research", "deep"}, k, msg})
	k, msg = c.QueryClassification.validate()
	checks = append(checks, check{[]string{"query_classification"}, k, msg})
	for _, ch := range checks {
		if ch.k == "" {
			continue
		}
		path := append(append([]string(nil), ch.table...), ch.k)
		key := formatKey(path)
		errs = append(errs, &ValueError{File: c.origins[key], Key: key, Line: c.keyLine(path), Message: ch.msg})
	}
	if key, msg := c.validateCost(); key != "" {
		errs = append(errs, &ValueError{File: c.origins[key], Key: key, Line: c.keyLine(strings.Split(key, ".")), Message: msg})
	}
	add(c.validateExtras())
	errs = append(errs, c.validateEnums()...)
	errs = append(errs, c.negativeValues()...)
	return joinErrors(firstPerKey(errs))
}

// checkBaseURL rejects an endpoint URL that is not http(s)://host…: a
// missing scheme ("127.0.0.1:11434/v1") otherwise fails only at the first
// question, with a parse error that does not name the key.
func (c *Config) checkBaseURL(key, raw string) error {
	if raw == "" {
		return nil
	}
	if u, err := url.Parse(raw); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	return &ValueError{File: c.origins[key], Key: key, Line: c.keyLine(strings.Split(key, ".")),
		Message: fmt.Sprintf("must be an http:// or https:// URL such as http://127.0.0.1:11434/v1, not %q", raw)}
}

// firstPerKey keeps one error per config key: the specific checks run
// before the generic negative-number walk, so their message wins.
func firstPerKey(errs []error) []error {
	seen := map[string]bool{}
	out := errs[:0]
	for _, err := range errs {
		var ve *ValueError
		if errors.As(err, &ve) && ve.Key != "" {
			if seen[ve.Key] {
				continue
			}
			seen[ve.Key] = true
		}
		out = append(out, err)
	}
	return out
}

// markdownStyles are glamour's built-in style names.
var markdownStyles = []string{"auto", "dark", "light", "dracula", "tokyo-night", "pink", "ascii", "notty"}

// validateMarkdownStyle accepts a built-in style or a readable JSON style
// file (a leading ~/ is the home directory).
func (c *Config) validateMarkdownStyle() error {
	s := c.General.MarkdownStyle
	if s == "" || slices.Contains(markdownStyles, s) {
		return nil
	}
	key := "general.markdown_style"
	if !strings.HasSuffix(s, ".json") {
		return &ValueError{File: c.origins[key], Key: key, Message: fmt.Sprintf("%q is not a style; use one of %s, or a glamour JSON style file", s, strings.Join(markdownStyles, ", "))}
	}
	if _, err := os.Stat(s); err != nil {
		return &ValueError{File: c.origins[key], Key: key, Message: fmt.Sprintf("style file: %v", err)}
	}
	return nil
}
