package configcmd

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/research"
)

// checkDeep reports the deep tier ([research.deep]): off, unusable, or how
// many chunks have its vectors. It never runs the deep model.
func checkDeep(ctx context.Context, rep *doctorReport, opts *DoctorOptions, cfg *config.Config) {
	if !cfg.Research.DeepEnabled() {
		rep.add("deep", statusSkip, "", "deep tier off ([research.deep] provider = \"off\")")
		return
	}
	d := cfg.Research.Deep
	if _, err := os.Stat(cfg.Paths.DB); errors.Is(err, fs.ErrNotExist) {
		dt := research.NewDeep(cfg.Research, nil, opts.HTTPClient(), opts.Env.Getenv, "")
		if err := dt.Load(); err != nil {
			rep.add("deep", statusFail, "check [research.deep], or set its provider = \"off\"", "%s", err)
			return
		}
		rep.add("deep", statusOK, "", "deep tier %s (no corpus yet)", dt.Model())
		return
	}
	st, err := opts.Store()
	if err != nil {
		rep.add("deep", statusSkip, "", "deep tier %s %s (database unavailable)", d.Provider, d.Model)
		return
	}
	dt := research.NewDeep(cfg.Research, st, opts.HTTPClient(), opts.Env.Getenv, "")
	if err := dt.Load(); err != nil {
		rep.add("deep", statusFail, "check [research.deep], or set its provider = \"off\"", "%s", err)
		return
	}
	cov, ok, err := dt.Peek(ctx)
	switch {
	case err != nil:
		rep.add("deep", statusWarn, "", "deep tier %s: %s", dt.Model(), err)
	case !ok:
		if chunks, _, err := st.CorpusCounts(ctx, ""); err == nil && chunks == 0 {
			rep.add("deep", statusOK, "", "deep tier %s (no corpus yet)", dt.Model())
			return
		}
		rep.add("deep", statusWarn, "run `asky corpus embed` to fill it", "deep tier %s: not filled yet", dt.Model())
	case cov.Vectors < cov.Chunks:
		rep.add("deep", statusWarn, "run `asky corpus embed` to continue the pass", "deep tier %s: %d/%d chunks embedded", dt.Model(), cov.Vectors, cov.Chunks)
	default:
		rep.add("deep", statusOK, "", "deep tier %s: %d/%d chunks embedded", dt.Model(), cov.Vectors, cov.Chunks)
	}
}
