package configcmd

import (
	"context"
	"strings"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
)

// checkDaemonConfig reports a [daemon] / [xmpp] table the daemon would
// refuse, and the voice/image models with their keys; it adds nothing
// for a config without them.
func checkDaemonConfig(ctx context.Context, rep *doctorReport, opts *DoctorOptions, cfg *config.Config) {
	dc, err := daemon.ParseConfig(cfg.Daemon, cfg.XMPP)
	if err == nil {
		err = dc.CheckMediaModels(cfg)
	}
	if err != nil {
		rep.add("daemon", statusFail, "fix [daemon] or [xmpp] (`asky config daemon edit`)", "%s", err)
		return
	}
	var parts []string
	for _, m := range []struct{ what, key, alias string }{{"voice", "transcription_model", dc.TranscriptionModel}, {"images", "vision_model", dc.VisionModel}} {
		if m.alias == "" {
			continue
		}
		r, err := cfg.ResolveModel(ctx, m.alias, opts.Env)
		if err != nil {
			rep.add("daemon", statusFail, "set the key of daemon."+m.key+"'s API", "daemon.%s: %s", m.key, err)
			return
		}
		parts = append(parts, m.what+" via "+m.alias+" ("+r.ID+" at "+r.BaseURL+")")
	}
	if len(parts) > 0 {
		rep.add("daemon", statusOK, "", "chat %s", strings.Join(parts, ", "))
	}
}
