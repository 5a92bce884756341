package daemon

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/cli/corpus"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/research"
)

// deepPassInterval is how often the daemon looks for chunks the deep tier
// still lacks (a CLI ingest added some, or a pass was stopped).
const deepPassInterval = time.Minute

// embeddedLine starts the log line of a pass that embedded chunks.
const embeddedLine = "deep tier: embedded "

// fillDeepLoop fills the deep tier ([research.deep]) in the background
// while the daemon serves, so a corpus ingested from the CLI gets its
// deep vectors without anyone running `asky corpus embed`. Each batch is
// committed, so stopping the daemon loses at most one. It gives way to
// fg (the turns in flight): on a small machine a fill on every core
// would slow every answer for as long as it runs (hours on a big
// corpus), so it pauses while a turn runs and resumes at full speed
// when the daemon is idle. wake starts a pass before the next minute's
// check (a chat upload added chunks).
func fillDeepLoop(ctx context.Context, f *cmdutil.Factory, cfg *config.Config, fg research.Foreground, wake deepWake, logf func(string)) {
	if !cfg.Research.DeepEnabled() {
		return
	}
	last := ""
	for {
		msg := fillDeepOnce(ctx, f, cfg, fg)
		// An error repeated every pass is said once; every pass that
		// embedded something is (two small uploads read the same).
		if msg != "" && (msg != last || strings.HasPrefix(msg, embeddedLine)) {
			logf(msg)
		}
		last = msg
		select {
		case <-ctx.Done():
			return
		case <-time.After(deepPassInterval):
		case <-wake:
		}
	}
}

// fillDeepOnce runs the pass when chunks lack deep vectors and says what
// it did ("" when there was nothing to do), giving way to fg. The deep
// model is not loaded when nothing is left.
func fillDeepOnce(ctx context.Context, f *cmdutil.Factory, cfg *config.Config, fg research.Foreground) string {
	st, err := f.Store()
	if err != nil {
		return fmt.Sprintf("deep tier: %v", err)
	}
	ix, err := corpus.NewIndex(cfg, st, f)
	if err != nil {
		return fmt.Sprintf("deep tier: %v", err)
	}
	cov, ok, err := ix.Deep.Peek(ctx)
	if err != nil {
		return fmt.Sprintf("deep tier: %v", err)
	}
	if !ok {
		cov.Chunks, _, err = st.CorpusCounts(ctx, "")
	}
	if err != nil || cov.Vectors >= cov.Chunks {
		return ""
	}
	start := time.Now()
	n, err := ix.FillDeepYielding(ctx, fg, nil)
	switch {
	case err != nil && ctx.Err() == nil:
		return fmt.Sprintf("deep tier: %v", err)
	case n > 0 && ctx.Err() != nil:
		return fmt.Sprintf(embeddedLine+"%d chunks in %s (stopped; the next start goes on)", n, time.Since(start).Round(time.Second))
	case n > 0:
		return fmt.Sprintf(embeddedLine+"%d chunks in %s", n, time.Since(start).Round(time.Second))
	}
	return ""
}
