package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Change sets one dotted key to a typed value (see ParseValue).
type Change struct {
	Key   string
	Value any
}

// Written describes one file that Apply wrote.
type Written struct {
	File string
	// Reencoded is true when the in-place editor could not handle the file
	// and it was rewritten from its parsed contents: its comments are gone.
	Reencoded bool
}

// ParseValue converts text from the command line to the type the key
// holds: integers, numbers, booleans and string lists are checked here so
// that nothing is written on a typo. Arrays may be given as TOML
// (["a", "b"]) or comma-separated. Free-form keys (model parameters …)
// take a TOML value when the text is one, else a string.
func ParseValue(key, text string) (any, error) {
	path, err := SplitKey(key)
	if err != nil {
		return nil, err
	}
	t, err := schemaType(path)
	if err != nil {
		return nil, err
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	bad := func(what string) error {
		return &KeyError{Key: key, Reason: fmt.Sprintf("expected %s, got %q", what, text)}
	}
	var v any
	switch t.Kind() {
	case reflect.String:
		v = text
	case reflect.Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, bad("true or false")
		}
		v = b
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(strings.ReplaceAll(text, "_", ""), 10, 64)
		if err != nil {
			return nil, bad("an integer")
		}
		v = n
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, bad("a number")
		}
		v = f
	case reflect.Slice:
		if strings.HasPrefix(strings.TrimSpace(text), "[") {
			var m struct{ V []string }
			if _, err := toml.Decode("V = "+text, &m); err != nil {
				return nil, bad("an array of strings")
			}
			v = m.V
		} else {
			list := []string{}
			for p := range strings.SplitSeq(text, ",") {
				if p = strings.TrimSpace(p); p != "" {
					list = append(list, p)
				}
			}
			v = list
		}
	case reflect.Interface:
		var m map[string]any
		if _, err := toml.Decode("v = "+text, &m); err == nil {
			v = m["v"]
		} else {
			v = text
		}
	default:
		return nil, &KeyError{Key: key, Reason: "is a table; set one of its keys (e.g. " + key + ".NAME)"}
	}
	if path[0] == "api" && len(path) == 3 && path[2] == "type" && v != "openai" && v != "anthropic" {
		return nil, bad(`"openai" or "anthropic"`)
	}
	return v, nil
}

// Apply writes changes to the configuration. Each key goes to the file that
// defines it (or its table) last, so an existing split-file layout keeps
// working; new keys go to config.toml. The edited files must load cleanly
// before anything is written, and each file is replaced atomically.
func Apply(getenv func(string) string, changes ...Change) ([]Written, error) {
	cfg, err := Load(getenv)
	if err != nil {
		return nil, err
	}
	main := filepath.Join(cfg.Paths.ConfigDir, MainFile)
	type edit struct {
		src       []byte
		reencoded bool
	}
	edits := map[string]*edit{}
	var order []string
	for _, ch := range changes {
		path, err := SplitKey(ch.Key)
		if err != nil {
			return nil, err
		}
		file := cfg.target(path, main)
		e, ok := edits[file]
		if !ok {
			src, err := os.ReadFile(file)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, &ReadError{File: file, Err: err}
			}
			e = &edit{src: bytes.TrimPrefix(src, bom)}
			edits[file] = e
			order = append(order, file)
		}
		next, reenc, err := setKey(file, e.src, path, ch.Value)
		if err != nil {
			return nil, err
		}
		e.src, e.reencoded = next, e.reencoded || reenc
	}
	overlay := map[string][]byte{}
	for f, e := range edits {
		overlay[f] = e.src
	}
	after, err := loadWith(getenv, overlay)
	if err != nil {
		return nil, fmt.Errorf("nothing written: the change would break the configuration: %w", err)
	}
	for _, ch := range changes {
		path, _ := SplitKey(ch.Key)
		if got := after.origins[formatKey(path)]; got != "" && edits[got] == nil {
			return nil, fmt.Errorf("nothing written: %s is also set in %s, which takes precedence", ch.Key, got)
		}
	}
	var out []Written
	for _, f := range order {
		if err := WriteFileAtomic(f, edits[f].src); err != nil {
			return out, err
		}
		out = append(out, Written{File: f, Reencoded: edits[f].reencoded})
	}
	return out, nil
}

// target picks the file for a key: the last file defining the key or its
// nearest table, else config.toml.
func (c *Config) target(path []string, main string) string {
	for i := len(path); i > 0; i-- {
		if f := c.origins[formatKey(path[:i])]; f != "" {
			return f
		}
	}
	return main
}

// setKey edits src in place and checks the result; when the in-place edit
// does not produce exactly the intended document, the file is re-encoded
// from its parsed tree instead (comments are lost; the caller says so).
func setKey(file string, src []byte, path []string, value any) ([]byte, bool, error) {
	lit, err := tomlLiteral(value)
	if err != nil {
		return nil, false, err
	}
	want := map[string]any{}
	if _, err := toml.Decode(string(src), &want); err != nil {
		return nil, false, positioned(file, src, err)
	}
	var lv map[string]any
	if _, err := toml.Decode("v = "+lit, &lv); err != nil {
		return nil, false, err
	}
	if err := setTree(want, path, lv["v"]); err != nil {
		return nil, false, fmt.Errorf("%s: %w", file, err)
	}
	next := editTOML(src, path, lit)
	got := map[string]any{}
	if _, err := toml.Decode(string(next), &got); err == nil && reflect.DeepEqual(got, want) {
		return next, false, nil
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(want); err != nil {
		return nil, false, err
	}
	return buf.Bytes(), true, nil
}

func setTree(tree map[string]any, path []string, v any) error {
	for i, seg := range path[:len(path)-1] {
		next, ok := tree[seg]
		if !ok {
			m := map[string]any{}
			tree[seg] = m
			tree = m
			continue
		}
		m, ok := next.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is not a table", formatKey(path[:i+1]))
		}
		tree = m
	}
	tree[path[len(path)-1]] = v
	return nil
}

// ReadJSONFile decodes the JSON file at path into v, the state files
// WriteFileAtomic writes. A missing file (or an empty path) leaves v as
// it is and is not an error; found says whether there was one.
func ReadJSONFile(path string, v any) (found bool, err error) {
	if path == "" {
		return false, nil
	}
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	return true, json.Unmarshal(b, v)
}

// WriteFileAtomic replaces path with data: a temp file in the same
// directory, fsync, rename, fsync of the directory. The file is 0600 and a
// directory it creates is 0700, because config files may hold keys. A
// symlinked file (dotfile managers) is written through to its target.
func WriteFileAtomic(path string, data []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create directory for %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	done = true
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
