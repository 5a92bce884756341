package config

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const modelsTOML = `
[api.local]
base_url = "http://local/v1"
[api.cloud]
base_url = "https://cloud/v1"
api_key_env = "CLOUD_KEY"
[api.vault]
base_url = "https://vault/v1"
api_key_cmd = "printf 'sk-from-cmd\nlogin: me\n'"
[models.b]
api = "local"
id = "model-b"
[models.a]
api = "cloud"
id = "model-a"
context_size = 9000
price_in = 1.5
[models.v]
api = "vault"
[models.k]
api = "openai"
id = "gpt-x"
`

func TestResolveModel(t *testing.T) {
	tests := []struct {
		name     string
		defModel string
		env      []string
		alias    string
		wantID   string
		wantSrc  string
		wantKey  string
		wantErr  string
	}{
		{"first alias in file order", "", nil, "", "model-b", "none", "", ""},
		{"general.default_model", "b", nil, "", "model-b", "none", "", ""},
		{"ASKY_MODEL beats default_model", "b", []string{"ASKY_MODEL", "a", "CLOUD_KEY", "k2"}, "", "model-a", "env CLOUD_KEY", "k2", ""},
		{"explicit alias beats ASKY_MODEL", "", []string{"ASKY_MODEL", "a"}, "b", "model-b", "none", "", ""},
		{"missing key env", "", nil, "a", "", "", "", "environment variable CLOUD_KEY is not set"},
		{"unknown alias", "", nil, "zz", "", "", "", `unknown model alias "zz"; configured aliases: a, b, k, v`},
		{"unknown ASKY_MODEL", "", []string{"ASKY_MODEL", "nope"}, "", "", "", "", `unknown model alias "nope"`},
		{"api_key_cmd first line", "", nil, "v", "v", "api_key_cmd", "sk-from-cmd", ""},
		{"known api without table", "", []string{"OPENAI_API_KEY", "ok"}, "k", "gpt-x", "env OPENAI_API_KEY", "ok", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := modelsTOML
			if tt.defModel != "" {
				body = "[general]\ndefault_model = \"" + tt.defModel + "\"\n" + body
			}
			_, getenv := home(t, map[string]string{"config.toml": body}, tt.env...)
			cfg, err := Load(getenv)
			if err != nil {
				t.Fatal(err)
			}
			r, err := cfg.ResolveModel(context.Background(), tt.alias, Env{Getenv: getenv})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.ID != tt.wantID || r.KeySource != tt.wantSrc || r.Key.Reveal() != tt.wantKey {
				t.Errorf("got id=%s src=%s key=%s", r.ID, r.KeySource, r.Key.Reveal())
			}
		})
	}
}

func TestResolveErrorsAreTyped(t *testing.T) {
	_, getenv := home(t, map[string]string{"config.toml": modelsTOML})
	cfg, _ := Load(getenv)
	_, err := cfg.ResolveModel(context.Background(), "a", Env{Getenv: getenv})
	var mk *MissingKeyError
	if !errors.As(err, &mk) || mk.API != "cloud" {
		t.Errorf("err = %#v", err)
	}
	_, err = cfg.ResolveModel(context.Background(), "x", Env{Getenv: getenv})
	var ua *UnknownAliasError
	if !errors.As(err, &ua) || len(ua.Aliases) != 4 {
		t.Errorf("err = %#v", err)
	}
}

func TestKeyCmd(t *testing.T) {
	tests := []struct {
		name, cmd string
		timeout   time.Duration
		wantErr   string
	}{
		{"failure shows stderr, never stdout", "echo sk-canary-out; echo 'gpg: decryption failed' >&2; exit 2", 0, "exit status 2: gpg: decryption failed"},
		{"empty output", "true", 0, "printed nothing"},
		{"timeout", "sleep 5", 200 * time.Millisecond, "timed out after 200ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := fmt.Sprintf("[api.p]\nbase_url = \"http://p\"\napi_key_cmd = %q\n[models.m]\napi = \"p\"\n", tt.cmd)
			_, getenv := home(t, map[string]string{"config.toml": body})
			cfg, err := Load(getenv)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = cfg.ResolveModel(context.Background(), "m", Env{Getenv: getenv, KeyCmdTimeout: tt.timeout})
			var mk *MissingKeyError
			if !errors.As(err, &mk) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "sk-canary") {
				t.Errorf("error echoes the command's output: %v", err)
			}
			if time.Since(start) > 3*time.Second {
				t.Errorf("took %s", time.Since(start))
			}
		})
	}
}

func TestDetect(t *testing.T) {
	probeAll := func(ctx context.Context, base string) bool { return true }
	probeLMStudio := func(ctx context.Context, base string) bool { return strings.Contains(base, ":1234") }
	tests := []struct {
		name     string
		env      []string
		probe    func(context.Context, string) bool
		wantBase string
		wantType string
		wantErr  error
	}{
		{"openai key", []string{"OPENAI_API_KEY", "o", "ANTHROPIC_API_KEY", "a"}, probeAll, "https://api.openai.com/v1", "openai", nil},
		{"anthropic key", []string{"ANTHROPIC_API_KEY", "a"}, nil, "https://api.anthropic.com/v1", "anthropic", nil},
		{"openrouter key", []string{"OPENROUTER_API_KEY", "r"}, nil, "https://openrouter.ai/api/v1", "openai", nil},
		{"ollama first", nil, probeAll, "http://127.0.0.1:11434/v1", "openai", nil},
		{"lm studio", nil, probeLMStudio, "http://127.0.0.1:1234/v1", "openai", nil},
		{"nothing", nil, func(context.Context, string) bool { return false }, "", "", ErrNoModel},
		{"no probe", nil, nil, "", "", ErrNoModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, getenv := home(t, nil, tt.env...)
			cfg, _ := Load(getenv)
			r, err := cfg.ResolveModel(context.Background(), "", Env{Getenv: getenv, Probe: tt.probe})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.BaseURL != tt.wantBase || r.Type != tt.wantType || !r.Detected {
				t.Errorf("got %+v", r)
			}
		})
	}
}

func TestSystemProbeAndFetchModels(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path != "/v1/models":
			http.NotFound(w, r)
		case r.Header.Get("x-api-key") == "ak" && r.Header.Get("anthropic-version") != "":
			fmt.Fprint(w, `{"data":[{"id":"claude-b"},{"id":"claude-a"}]}`)
		case r.Header.Get("Authorization") == "Bearer ok" || r.Header.Get("Authorization") == "":
			fmt.Fprint(w, `{"data":[{"id":"m2"},{"id":"m1"}]}`)
		default:
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	if !SystemProbe(ctx, srv.URL+"/v1") || SystemProbe(ctx, srv.URL+"/nope") {
		t.Error("probe")
	}
	if got := ListModels(ctx, srv.URL+"/v1"); strings.Join(got, ",") != "m1,m2" {
		t.Errorf("list = %v", got)
	}
	ids, err := FetchModels(ctx, srv.Client(), Endpoint{Type: "anthropic", BaseURL: srv.URL + "/v1/", Key: "ak"})
	if err != nil || strings.Join(ids, ",") != "claude-a,claude-b" {
		t.Errorf("anthropic: %v %v", ids, err)
	}
	_, err = FetchModels(ctx, srv.Client(), Endpoint{Type: "openai", BaseURL: srv.URL + "/v1", Key: "bad-canary"})
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 401 || strings.Contains(err.Error(), "canary") {
		t.Errorf("err = %v", err)
	}
	// Detection asks the local server for its first model.
	_, getenv := home(t, nil)
	cfg, _ := Load(getenv)
	probe := func(_ context.Context, base string) bool { return strings.Contains(base, ":11434") }
	r, err := cfg.detect(ctx, Env{Getenv: getenv, Probe: probe})
	if err != nil || r.Alias != "ollama" {
		t.Fatalf("%v %v", r, err)
	}
}

func TestSecretNeverPrints(t *testing.T) {
	s := Secret("sk-canary")
	for _, got := range []string{fmt.Sprint(s), fmt.Sprintf("%v %s %#v %+v", s, s, s, struct{ K Secret }{s})} {
		if strings.Contains(got, "canary") {
			t.Errorf("leak: %s", got)
		}
	}
	if s.Reveal() != "sk-canary" {
		t.Error("reveal")
	}
}

// A model of the original's bundled models.toml names api "zai" without
// an [api.zai] table of its own.
func TestResolveBuiltinZai(t *testing.T) {
	cfg, getenv := loadQuiet(t, map[string]string{"models.toml": "[models.glmair]\nid = \"glm-4.5-air\"\napi = \"zai\"\ncontext_size = 100000\n"})
	env := Env{Getenv: func(k string) string {
		if k == "ZAI_API_KEY" {
			return "z-key"
		}
		return getenv(k)
	}}
	m, err := cfg.ResolveModel(context.Background(), "glmair", env)
	if err != nil {
		t.Fatal(err)
	}
	if m.BaseURL != "https://api.z.ai/api/paas/v4" || m.Key != "z-key" {
		t.Errorf("glmair resolved to %s with key %q", m.BaseURL, m.Key)
	}
}

// As in the original, a model inherits base_url and its key from its
// [api] table unless it sets them itself.
func TestResolveModelOwnEndpoint(t *testing.T) {
	cfg, getenv := loadQuiet(t, map[string]string{"config.toml": `
[api.shared]
base_url = "http://shared/v1"
api_key_env = "SHARED_KEY"

[models.inherit]
api = "shared"
id = "a"

[models.own]
api = "shared"
id = "b"
base_url = "http://own/v1/chat/completions"
api_key_env = "OWN_KEY"

[models.bare]
id = "c"
base_url = "http://bare/v1"
`})
	env := Env{Getenv: func(k string) string {
		switch k {
		case "SHARED_KEY":
			return "k-shared"
		case "OWN_KEY":
			return "k-own"
		}
		return getenv(k)
	}}
	for _, tt := range []struct{ alias, base, key, typ string }{
		{"inherit", "http://shared/v1", "k-shared", "openai"},
		{"own", "http://own/v1", "k-own", "openai"},
		{"bare", "http://bare/v1", "", "openai"},
	} {
		m, err := cfg.ResolveModel(context.Background(), tt.alias, env)
		if err != nil {
			t.Errorf("%s: %v", tt.alias, err)
			continue
		}
		if m.BaseURL != tt.base || m.Key.Reveal() != tt.key || m.Type != tt.typ {
			t.Errorf("%s: %s key %q type %s, want %s key %q type %s", tt.alias, m.BaseURL, m.Key.Reveal(), m.Type, tt.base, tt.key, tt.typ)
		}
	}
}
