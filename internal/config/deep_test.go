package config

import (
	"errors"
	"strings"
	"testing"
)

func TestDeepTierConfig(t *testing.T) {
	_, getenv := home(t, nil)
	if _, err := Load(getenv); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for body, want := range map[string]string{
		"[research.deep]\nprovider = \"magic\"\n":                                  "must be off, builtin, static, openai or ollama",
		"[research.deep]\nprovider = \"ollama\"\nmodel = \"m\"\nbatch_size = -1\n": "research.deep.batch_size",
	} {
		_, getenv := home(t, map[string]string{"config.toml": body})
		_, err := Load(getenv)
		var ve *ValueError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", body, err, want)
		}
	}
	for body, on := range map[string]bool{
		"[research.deep]\nprovider = \"off\"\n":                            false,
		"[research.deep]\nprovider = \"builtin\"\nmodel = \"hash-v1\"\n":   true,
		"[research.deep]\nprovider = \"ollama\"\nmodel = \"all-minilm\"\n": true,
		// The main embedder again (the user made it the main one): off, not an error.
		"[research.embedding]\nprovider = \"builtin\"\nmodel = \"hash-v1\"\n[research.deep]\nprovider = \"\"\nmodel = \"hash-v1\"\nbatch_size = 8\n": false,
	} {
		_, getenv = home(t, map[string]string{"config.toml": body})
		cfg, err := Load(getenv)
		if err != nil || cfg.Research.DeepEnabled() != on {
			t.Errorf("%q: enabled = %v, %v; want %v", body, err == nil && cfg.Research.DeepEnabled(), err, on)
		}
	}
}
