package compose

import (
	"context"
	"fmt"

	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/tools/custom"
	"github.com/askygo/asky/internal/turn"
)

// customExtension offers the [tool.NAME] command tools. Remote (daemon)
// questions only get the ones marked remote = true. A broken entry is a
// warning (config doctor explains it); a name taken by a built-in tool is
// skipped rather than replacing it.
func customExtension(_ context.Context, x *composer, req *turn.Request, reg *tools.Registry) error {
	pushExtension(x, req, reg)
	if len(x.cfg.Tool) == 0 {
		return nil
	}
	specs, errs := custom.Tools(x.cfg.Tool, x.Getenv("HOME"), x.q.Remote)
	for _, err := range errs {
		x.warn(fmt.Sprintf("%v (see asky config doctor)", err))
	}
	for _, s := range specs {
		if _, taken := reg.Get(s.Name); taken {
			x.warn(fmt.Sprintf("[tool.%s] has the name of a built-in tool; skipped", s.Name))
			continue
		}
		reg.Add(s.Tool())
	}
	return nil
}

// pushExtension offers push_data_<name> for the [push_data.NAME]
// endpoints with enabled = true (asky-behavior.md §4.2).
func pushExtension(x *composer, req *turn.Request, reg *tools.Registry) {
	if len(x.cfg.PushData) == 0 {
		return
	}
	d := &tools.PushDeps{Endpoints: x.cfg.PushData, UserAgent: x.cfg.General.UserAgent, Getenv: x.Getenv,
		Query: req.Query, Now: x.Now,
		Model: func() string {
			if req.Model != nil {
				return req.Model.ID
			}
			return ""
		}}
	if x.HTTPClient != nil {
		d.Client = x.HTTPClient()
	}
	for _, t := range tools.PushTools(d) {
		reg.Add(t)
	}
}
