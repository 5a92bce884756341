package compose

import (
	"context"
	"slices"
	"testing"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/turn"
)

// TestCustomToolsRemoteGate: daemon (remote) questions only get the
// [tool.NAME] entries marked remote = true.
func TestCustomToolsRemoteGate(t *testing.T) {
	fx := newMemoryFixture(t)
	fx.x.Getenv = func(string) string { return "" }
	fx.cfg.Tool = map[string]config.CustomTool{
		"local_ls":  {Command: "ls {path}", Parameters: map[string]any{"properties": map[string]any{"path": map[string]any{"type": "string"}}}},
		"shared_ls": {Command: []any{"ls"}, Remote: true},
	}
	for _, remote := range []bool{false, true} {
		fx.x.q.Remote = remote
		reg, err := buildTools(context.Background(), fx.x, &turn.Request{})
		if err != nil {
			t.Fatal(err)
		}
		names := reg.Names()
		if !slices.Contains(names, "shared_ls") || slices.Contains(names, "local_ls") != !remote {
			t.Errorf("remote=%v: tools %v", remote, names)
		}
	}
}
