package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"time"
)

// ResolvedModel is everything a client needs to call one model.
type ResolvedModel struct {
	Alias       string
	ID          string
	APIName     string
	Type        string // "openai" or "anthropic"
	BaseURL     string
	Key         Secret
	KeySource   string // e.g. "env OPENAI_API_KEY", for doctor and hints
	Headers     map[string]string
	ContextSize int
	MaxTurns    int
	Parameters  map[string]any
	PriceIn     float64
	PriceOut    float64
	// PriceCacheRead and PriceCacheWrite are USD per million cache tokens
	// (zero: priced as input).
	PriceCacheRead, PriceCacheWrite float64
	// Detected is true when no model was configured and this one was found
	// from the environment or a local server.
	Detected bool
}

// ErrNoModel means nothing is configured and nothing could be detected.
var ErrNoModel = errors.New("no model configured")

// UnknownAliasError is returned for -m with an alias that does not exist.
type UnknownAliasError struct {
	Alias   string
	Aliases []string
	// From is where a default alias came from ("$ASKY_MODEL" or
	// "general.default_model"); empty for an alias asked for by name.
	From string
}

func (e *UnknownAliasError) Error() string {
	from := ""
	if e.From != "" {
		from = " (from " + e.From + ")"
	}
	if len(e.Aliases) == 0 {
		return fmt.Sprintf("unknown model alias %q%s (no models are configured)", e.Alias, from)
	}
	return fmt.Sprintf("unknown model alias %q%s; configured aliases: %s", e.Alias, from, strings.Join(e.Aliases, ", "))
}

// MissingKeyError means the API key could not be obtained.
type MissingKeyError struct {
	API    string
	Source string
	Err    error
}

func (e *MissingKeyError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("api %q: %s: %v", e.API, e.Source, e.Err)
	}
	return fmt.Sprintf("api %q: %s is not set", e.API, e.Source)
}

// Hint tells the user what to do next: a failing api_key_cmd is fixed in
// the command, a missing variable by exporting it.
func (e *MissingKeyError) Hint() string {
	if e.Source == "api_key_cmd" {
		return "run [api." + e.API + "] api_key_cmd in a shell to see why it fails, or use api_key_env instead"
	}
	return "export the variable, or set api_key_env / api_key_cmd in [api." + e.API + "]"
}

// Env abstracts the process environment and local probing so that model
// resolution is testable.
type Env struct {
	Getenv func(string) string
	// Probe reports whether an OpenAI-compatible server answers /v1/models
	// at baseURL. Nil disables local detection.
	Probe func(ctx context.Context, baseURL string) bool
	// KeyCmdTimeout bounds api_key_cmd (default 10 s: long enough for a
	// password manager prompt, short enough not to hang a script).
	KeyCmdTimeout time.Duration
}

// SystemProbe checks a local OpenAI-compatible server with a short timeout.
func SystemProbe(ctx context.Context, baseURL string) bool {
	ctx, cancel := context.WithTimeout(ctx, 400*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(baseURL, "/")+"/models", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// DefaultAlias picks the alias used when -m is not given: $ASKY_MODEL, then
// general.default_model, then the first alias defined in the files (in
// merge order, as the original did), else the first in sorted order.
func (c *Config) DefaultAlias(getenv func(string) string) string {
	if v := getenv("ASKY_MODEL"); v != "" {
		return v
	}
	if c.General.DefaultModel != "" {
		return c.General.DefaultModel
	}
	for _, a := range c.modelOrder {
		if _, ok := c.Models[a]; ok {
			return a
		}
	}
	if a := c.Aliases(); len(a) > 0 {
		return a[0]
	}
	return ""
}

// ResolveModel turns an alias ("" = default) into a callable model.
// With no models configured it detects one from well-known API key
// variables or a local Ollama / LM Studio server.
func (c *Config) ResolveModel(ctx context.Context, alias string, env Env) (*ResolvedModel, error) {
	r, err := c.LookupModel(ctx, alias, env)
	if err != nil {
		return nil, err
	}
	if err := c.ResolveKey(ctx, r, env); err != nil {
		return nil, err
	}
	return r, nil
}

// LookupModel resolves everything but the API key, so that `config doctor`
// can report the model and its key separately. KeySource says where the
// key will come from. Detected models already carry their key.
func (c *Config) LookupModel(ctx context.Context, alias string, env Env) (*ResolvedModel, error) {
	from := ""
	if alias == "" {
		alias = c.DefaultAlias(env.Getenv)
		switch {
		case env.Getenv("ASKY_MODEL") != "":
			from = "$ASKY_MODEL"
		case c.General.DefaultModel != "":
			from = "general.default_model"
		}
	}
	if alias == "" {
		return c.detect(ctx, env)
	}
	m, ok := c.Models[alias]
	if !ok {
		return nil, &UnknownAliasError{Alias: alias, Aliases: c.Aliases(), From: from}
	}
	r := &ResolvedModel{
		Alias: alias, ID: m.ID, APIName: m.API, ContextSize: m.ContextSize, MaxTurns: m.MaxTurns,
		Parameters: m.Parameters, PriceIn: m.PriceIn, PriceOut: m.PriceOut,
		PriceCacheRead: m.PriceCacheRead, PriceCacheWrite: m.PriceCacheWrite,
	}
	if r.ID == "" {
		r.ID = alias
	}
	if r.ContextSize <= 0 {
		r.ContextSize = c.General.DefaultContextSize
	}
	a, ok := c.APIFor(m.API)
	if !ok && m.BaseURL == "" {
		if m.API == "" {
			return nil, fmt.Errorf("model %q has no api; set [models.%s] api = \"NAME\" naming an [api.NAME] table", alias, alias)
		}
		return nil, fmt.Errorf("model %q uses api %q, which is not defined in [api]", alias, m.API)
	}
	a = m.overAPI(a)
	r.Type, r.BaseURL, r.Headers = a.Type, a.BaseURL, a.Headers
	if r.BaseURL == "" {
		return nil, fmt.Errorf("api %q has no base_url", m.API)
	}
	r.KeySource = keySource(a)
	return r, nil
}

// ResolveKey obtains r's API key from its [api] table.
func (c *Config) ResolveKey(ctx context.Context, r *ResolvedModel, env Env) error {
	if r.Detected {
		return nil
	}
	a, _ := c.APIFor(r.APIName)
	if m, ok := c.Models[r.Alias]; ok {
		a = m.overAPI(a)
	}
	key, src, err := apiKey(ctx, r.APIName, a, env)
	if err != nil {
		return err
	}
	r.Key, r.KeySource = key, src
	return nil
}

// KnownAPIs returns the endpoints a model may name without an [api] table
// of its own (`api = "openai"`); an [api.NAME] table with the same name
// wins. A fresh map each call, so no caller can change the built-ins.
func KnownAPIs() map[string]API {
	return map[string]API{
		"openai":     {Type: "openai", BaseURL: "https://api.openai.com/v1", APIKeyEnv: "OPENAI_API_KEY"},
		"anthropic":  {Type: "anthropic", BaseURL: "https://api.anthropic.com/v1", APIKeyEnv: "ANTHROPIC_API_KEY"},
		"openrouter": {Type: "openai", BaseURL: "https://openrouter.ai/api/v1", APIKeyEnv: "OPENROUTER_API_KEY"},
		"gemini":     {Type: "openai", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", APIKeyEnv: "GOOGLE_API_KEY"},
		"ollama":     {Type: "openai", BaseURL: "http://127.0.0.1:11434/v1"},
		"lmstudio":   {Type: "openai", BaseURL: "http://127.0.0.1:1234/v1"},
		// The original's bundled glmair/glmflash models use it.
		"zai": {Type: "openai", BaseURL: "https://api.z.ai/api/paas/v4", APIKeyEnv: "ZAI_API_KEY"},
	}
}

// overAPI is the endpoint of model m: its api table with the model's own
// base_url and key settings, when it has them, in their place.
func (m Model) overAPI(a API) API {
	if m.BaseURL != "" {
		base, anthropic := baseFromURL(m.BaseURL)
		a.BaseURL = base
		switch {
		case anthropic:
			a.Type = "anthropic"
		case a.Type == "":
			a.Type = "openai"
		}
	}
	if m.APIKey != "" || m.APIKeyEnv != "" {
		a.APIKey, a.APIKeyEnv, a.APIKeyCmd = m.APIKey, m.APIKeyEnv, ""
	}
	return a
}

// APIFor returns the [api.NAME] table, falling back to KnownAPIs.
func (c *Config) APIFor(name string) (API, bool) {
	if a, ok := c.API[name]; ok {
		return a, true
	}
	a, ok := KnownAPIs()[name]
	return a, ok
}

func keySource(a API) string {
	switch {
	case a.APIKey != "":
		return "api_key in config"
	case a.APIKeyCmd != "":
		return "api_key_cmd"
	case a.APIKeyEnv != "":
		return "env " + a.APIKeyEnv
	}
	return "none"
}

// apiKey obtains the key: literal api_key, then api_key_cmd, then the env
// variable named by api_key_env. A missing variable is an error only when
// one was named; local servers usually need no key.
func apiKey(ctx context.Context, name string, a API, env Env) (Secret, string, error) {
	switch {
	case a.APIKey != "":
		return a.APIKey, "api_key in config", nil
	case a.APIKeyCmd != "":
		k, err := runKeyCmd(ctx, a.APIKeyCmd, env.KeyCmdTimeout)
		if err != nil {
			return "", "", &MissingKeyError{API: name, Source: "api_key_cmd", Err: err}
		}
		return k, "api_key_cmd", nil
	case a.APIKeyEnv != "":
		k := env.Getenv(a.APIKeyEnv)
		if k == "" {
			return "", "", &MissingKeyError{API: name, Source: "environment variable " + a.APIKeyEnv}
		}
		return Secret(k), "env " + a.APIKeyEnv, nil
	}
	return "", "none", nil
}

// runKeyCmd runs api_key_cmd through sh and returns the first line of its
// output (`pass show` prints the password first, then metadata). The
// output is never part of an error; stderr's first line is, because it is
// how a password manager says what went wrong.
func runKeyCmd(ctx context.Context, command string, timeout time.Duration) (Secret, error) {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A child that keeps the pipes open must not hang us past the timeout.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return "", fmt.Errorf("timed out after %s", timeout)
	}
	if err != nil {
		msg := err.Error()
		if line, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n"); line != "" {
			if len(line) > 200 {
				line = line[:200] + "…"
			}
			msg += ": " + line
		}
		return "", errors.New(msg)
	}
	line, _, _ := strings.Cut(stdout.String(), "\n")
	line = strings.TrimSpace(line)
	if line == "" {
		return "", errors.New("printed nothing")
	}
	return Secret(line), nil
}

type detectCandidate struct {
	env, name, typ, base, model string
	ctx                         int
}

var envCandidates = []detectCandidate{
	{env: "OPENAI_API_KEY", name: "openai", typ: "openai", base: "https://api.openai.com/v1", model: "gpt-4o-mini", ctx: 128000},
	{env: "ANTHROPIC_API_KEY", name: "anthropic", typ: "anthropic", base: "https://api.anthropic.com/v1", model: "claude-3-5-haiku-latest", ctx: 200000},
	{env: "OPENROUTER_API_KEY", name: "openrouter", typ: "openai", base: "https://openrouter.ai/api/v1", model: "openai/gpt-4o-mini", ctx: 128000},
}

func (c *Config) detect(ctx context.Context, env Env) (*ResolvedModel, error) {
	for _, d := range envCandidates {
		if k := env.Getenv(d.env); k != "" {
			return &ResolvedModel{Alias: d.name, ID: d.model, APIName: d.name, Type: d.typ, BaseURL: d.base,
				Key: Secret(k), KeySource: "env " + d.env, ContextSize: d.ctx, Detected: true}, nil
		}
	}
	if env.Probe != nil {
		for _, l := range []struct{ name, base string }{{"ollama", "http://127.0.0.1:11434/v1"}, {"lmstudio", "http://127.0.0.1:1234/v1"}} {
			if env.Probe(ctx, l.base) {
				return &ResolvedModel{Alias: l.name, ID: firstLocalModel(ctx, l.base), APIName: l.name, Type: "openai",
					BaseURL: l.base, KeySource: "none", ContextSize: c.General.DefaultContextSize, Detected: true}, nil
			}
		}
	}
	return nil, ErrNoModel
}

// firstLocalModel asks a local server for its models and returns the first.
func firstLocalModel(ctx context.Context, base string) string {
	ids := ListModels(ctx, base)
	if len(ids) == 0 {
		return "default"
	}
	return ids[0]
}

// RunSecretCmd runs a secret command other than api_key_cmd (the daemon's
// token_cmd) exactly like api_key_cmd: through sh, first output line,
// bounded time, output never in errors.
func RunSecretCmd(ctx context.Context, command string) (Secret, error) {
	return runKeyCmd(ctx, command, 0)
}
