package config

import (
	"bytes"
	"errors"
	"reflect"
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
