package configcmd

import (
	"strings"
	"testing"
)

func TestDoctorDeepTier(t *testing.T) {
	for cfg, want := range map[string]string{
		"[research.deep]\nprovider = \"off\"\n":                          "- deep      deep tier off",
		"[research.deep]\nprovider = \"builtin\"\nmodel = \"hash-v1\"\n": "✓ deep      deep tier builtin hash-v1 (no corpus yet)",
		"[research.deep]\nprovider = \"builtin\"\nmodel = \"no-such\"\n": "✗ deep      research.deep: unknown builtin embedder \"no-such\"",
	} {
		e := newEnv(t, map[string]string{"config.toml": cfg})
		out, _ := e.doctor(t)
		if !strings.Contains(out, want) {
			t.Errorf("%q: doctor says\n%s\nwant %q", cfg, out, want)
		}
	}
}
