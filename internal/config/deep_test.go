package config

import (
	"errors"
	"strings"
	"testing"
)

func TestDeepTierConfig(t *testing.T) {
	_, getenv := home(t, nil)
	cfg, err := Load(getenv)
	if err != nil || cfg.Research.DeepEnabled() {
		t.Fatalf("default deep tier: %+v, %v", cfg.Research.Deep, err)
	}
	for body, want := range map[string]string{
		"[research.deep]\nprovider = \"magic\"\n": "must be off, builtin, static, openai or ollama",
		"[research.embedding]\nprovider = \"builtin\"\nmodel = \"hash-v1\"\nbatch_size = 32\n[research.deep]\nprovider = \"builtin\"\nmodel = \"hash-v1\"\nbatch_size = 32\n": "same embedder",
		"[research.deep]\nprovider = \"ollama\"\nmodel = \"m\"\nbatch_size = -1\n":                                                                                            "research.deep.batch_size",
	} {
		_, getenv := home(t, map[string]string{"config.toml": body})
		_, err := Load(getenv)
		var ve *ValueError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", body, err, want)
		}
	}
	_, getenv = home(t, map[string]string{"config.toml": "[research.deep]\nprovider = \"builtin\"\nmodel = \"hash-v1\"\n"})
	if cfg, err := Load(getenv); err != nil || !cfg.Research.DeepEnabled() {
		t.Fatalf("deep tier on: %+v, %v", cfg.Research.Deep, err)
	}
}
