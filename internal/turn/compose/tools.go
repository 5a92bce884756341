package compose

import (
	"context"

	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
)

// extension contributes tools and preloaders to a turn. Each capability
// (web, research corpus, memory) adds one in its own file and is listed in
// extensions; they run in order.
type extension func(ctx context.Context, x *composer, req *turn.Request, reg *tools.Registry) error

// extensions is the ordered list of capabilities composed into a turn.
var extensions = []extension{
	interfaceExtension,
	memoryExtension,
	webExtension,
	researchExtension,
	customExtension,
	shortlistExtension,
	evidenceExtension,
}

// buildTools composes the tool registry (and preloaders on req) from every
// extension, then applies the request's tools-off list.
func buildTools(ctx context.Context, x *composer, req *turn.Request) (*tools.Registry, error) {
	reg := tools.NewRegistry()
	for _, ext := range extensions {
		if err := ext(ctx, x, req, reg); err != nil {
			return nil, err
		}
	}
	known := reg.Names()
	for _, name := range x.q.ToolOff {
		if name == "all" {
			continue
		}
		if _, ok := reg.Get(name); !ok {
			return nil, &UsageError{Err: &tools.UnknownToolError{Name: name, Known: known}, Next: "list tools with `asky --tools`"}
		}
	}
	reg.Remove(x.q.ToolOff...)
	applyToolOverrides(x.cfg, reg)
	if x.q.Remote {
		x.remotePolicy().Apply(reg)
	}
	return reg, nil
}

// remotePolicy is what a question from the daemon may use.
func (x *composer) remotePolicy() tools.Remote {
	return tools.Remote{Roots: append(x.cfg.DocumentRoots(x.Getenv), x.q.RemoteRoots...)}
}
