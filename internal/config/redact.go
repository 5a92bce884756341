package config

import (
	"bytes"
	"maps"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// Redacted is the placeholder printed instead of a secret.
const Redacted = "[redacted]"

// isSecretName reports keys whose literal value is a credential: api_key,
// password, token, secret and their *_key/*_token variants, but not the
// *_env / *_cmd keys that only name where a secret lives.
func isSecretName(name string) bool {
	n := strings.ToLower(name)
	if strings.HasSuffix(n, "_env") || strings.HasSuffix(n, "_cmd") || strings.HasSuffix(n, "_url") {
		return false
	}
	for _, s := range []string{"api_key", "apikey", "password", "passwd", "token", "secret"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return n == "key" || strings.HasSuffix(n, "_key")
}

// isSecretHeader reports HTTP headers that carry credentials.
func isSecretHeader(name string) bool {
	n := strings.ToLower(name)
	return n == "authorization" || n == "proxy-authorization" || n == "cookie" || strings.Contains(n, "key") || strings.Contains(n, "token") || strings.Contains(n, "secret")
}

// Redacted returns a copy of c that is safe to print: literal keys,
// passwords in free-form tables and credential headers are replaced.
// Secret fields already redact themselves when encoded.
func (c *Config) Redacted() *Config {
	r := *c
	r.API = make(map[string]API, len(c.API))
	for name, a := range c.API {
		if a.Headers != nil {
			h := make(map[string]string, len(a.Headers))
			for k, v := range a.Headers {
				if isSecretHeader(k) && v != "" {
					v = Redacted
				}
				h[k] = v
			}
			a.Headers = h
		}
		r.API[name] = a
	}
	r.Prompts = redactTree(c.Prompts)
	r.Daemon = redactTree(c.Daemon)
	r.Models = maps.Clone(c.Models)
	for alias, m := range r.Models {
		m.Parameters = redactTree(m.Parameters)
		r.Models[alias] = m
	}
	return &r
}

func redactTree(t map[string]any) map[string]any {
	if t == nil {
		return nil
	}
	out := make(map[string]any, len(t))
	for k, v := range t {
		switch x := v.(type) {
		case map[string]any:
			out[k] = redactTree(x)
		case string:
			if x != "" && isSecretName(k) {
				x = Redacted
			}
			out[k] = x
		default:
			out[k] = v
		}
	}
	return out
}

// EncodeTOML writes the configuration as TOML with every secret redacted.
func (c *Config) EncodeTOML() ([]byte, error) {
	var buf bytes.Buffer
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(c.Redacted()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Tree returns the redacted configuration as nested maps keyed like the
// TOML file, for `config get` and JSON output.
func (c *Config) Tree() (map[string]any, error) {
	b, err := c.EncodeTOML()
	if err != nil {
		return nil, err
	}
	tree := map[string]any{}
	if _, err := toml.Decode(string(b), &tree); err != nil {
		return nil, err
	}
	return tree, nil
}

// Lookup returns the redacted value at a dotted key. ok is false when the
// key is valid but not set (e.g. an alias that does not exist).
func (c *Config) Lookup(key string) (value any, ok bool, err error) {
	path, err := SplitKey(key)
	if err != nil {
		return nil, false, err
	}
	if _, err := schemaType(path); err != nil {
		return nil, false, err
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, false, err
	}
	var cur any = tree
	for i, seg := range path {
		m, isMap := cur.(map[string]any)
		if !isMap {
			return nil, false, nil
		}
		if cur, ok = m[seg]; !ok {
			// Empty fields are omitted when encoding; a known leaf under an
			// existing table reads as its zero value.
			if i == len(path)-1 {
				if t, err := schemaType(path); err == nil && t.Kind() != reflect.Interface && t.Kind() != reflect.Map && t.Kind() != reflect.Struct {
					return zeroOf(t), true, nil
				}
			}
			return nil, false, nil
		}
	}
	return cur, true, nil
}

func zeroOf(t reflect.Type) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return ""
	case reflect.Bool:
		return false
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int64(0)
	case reflect.Float32, reflect.Float64:
		return float64(0)
	case reflect.Slice:
		return []any{}
	}
	return nil
}
