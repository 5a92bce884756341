package query

import (
	"context"
	"fmt"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/tools/custom"
	"github.com/askygo/asky/internal/turn"
)

// customExtension offers the [tool.NAME] command tools. Remote (daemon)
// questions only get the ones marked remote = true. A broken entry is a
// warning (config doctor explains it); a name taken by a built-in tool is
// skipped rather than replacing it.
func customExtension(_ context.Context, opts *Options, cfg *config.Config, _ *turn.Request, reg *tools.Registry) error {
	if len(cfg.Tool) == 0 {
		return nil
	}
	specs, errs := custom.Tools(cfg.Tool, opts.Factory.Getenv("HOME"), opts.Remote)
	for _, err := range errs {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %v (see asky config doctor)\n", err)
	}
	for _, s := range specs {
		if _, taken := reg.Get(s.Name); taken {
			fmt.Fprintf(opts.IO.ErrOut, "warning: [tool.%s] has the name of a built-in tool; skipped\n", s.Name)
			continue
		}
		reg.Add(s.Tool())
	}
	return nil
}
