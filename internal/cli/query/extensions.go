package query

import (
	"context"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
)

// extension contributes tools and preloaders to a query. Each capability
// (web, research corpus, memory, sessions) adds one in its own file and is
// listed in extensions; they run in order.
type extension func(ctx context.Context, opts *Options, cfg *config.Config, req *turn.Request, reg *tools.Registry) error

// extensions is the ordered list of capabilities composed into a query.
var extensions = []extension{
	memoryExtension,
	webExtension,
	researchExtension,
}

// buildTools composes the tool registry (and preloaders on req) from every
// extension, then applies -off.
func buildTools(ctx context.Context, opts *Options, cfg *config.Config, req *turn.Request) (*tools.Registry, error) {
	reg := tools.NewRegistry()
	for _, ext := range extensions {
		if err := ext(ctx, opts, cfg, req, reg); err != nil {
			return nil, err
		}
	}
	known := reg.Names()
	for _, name := range opts.ToolOff {
		if name == "all" {
			continue
		}
		if _, ok := reg.Get(name); !ok {
			return nil, &cmdutil.FlagError{Err: &tools.UnknownToolError{Name: name, Known: known}, Hint: "list tools with `asky --tools`"}
		}
	}
	reg.Remove(opts.ToolOff...)
	if opts.Remote {
		remotePolicy(opts, cfg).Apply(reg)
	}
	return reg, nil
}

// remotePolicy is what a question from the daemon may use.
func remotePolicy(opts *Options, cfg *config.Config) tools.Remote {
	var roots []string
	for _, r := range cfg.Research.LocalDocumentRoots {
		roots = append(roots, tools.ExpandHome(r, opts.Factory.Getenv("HOME")))
	}
	return tools.Remote{Roots: roots}
}
