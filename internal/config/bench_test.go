package config

import "testing"

// BenchmarkLoad measures what every command pays to read its
// configuration: one config.toml (the common case, decoded once) and the
// original's split layout (trees merged, then decoded).
func BenchmarkLoad(b *testing.B) {
	for _, bc := range []struct {
		name  string
		files map[string]string
	}{
		{"none", nil},
		{"config.toml", map[string]string{"config.toml": modelsTOML + "[general]\ndefault_model = \"a\"\n"}},
		{"split", map[string]string{
			"config.toml":  modelsTOML,
			"general.toml": "[general]\nmax_turns = 9\nsearch_provider = \"searxng\"\n",
			"models.toml":  "[models.c]\napi = \"local\"\nid = \"c\"\n[models.c.parameters]\ntemperature = 0.2\n",
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			_, getenv := home(b, bc.files)
			for b.Loop() {
				if _, err := Load(getenv); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
