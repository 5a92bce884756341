package daemon

import (
	"context"
	"path/filepath"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/cli/corpus"
	"github.com/askygo/asky/internal/research"
)

// deepWake wakes the background deep fill (fillDeepLoop) before its next
// scheduled pass, so an upload's chunks get their deep vectors as soon as
// the daemon is idle rather than at the next minute's check. A nil
// deepWake wakes nothing.
type deepWake chan struct{}

func newDeepWake() deepWake { return make(deepWake, 1) }

// wake asks for a pass; asks made while one is pending merge into it.
func (w deepWake) wake() {
	select {
	case w <- struct{}{}:
	default:
	}
}

// ingestUploads adds stored uploads to the corpus the way `asky corpus
// ingest --no-deep` does: the documents are searchable when it returns
// (keywords and the fast semantic tier), and their deep vectors are left
// to the daemon's background fill, which wake starts. Running the deep
// pass here would make the chat user wait for the whole unfilled deep
// tier of the corpus, minutes to hours on a big one. It returns the
// paths now in the corpus and why each other one is not: each document
// is written in one transaction, so a file is either whole in the corpus
// or absent.
func ingestUploads(ctx context.Context, f *cmdutil.Factory, paths []string, wake deepWake) (ok []string, failed map[string]string) {
	failed = map[string]string{}
	failAll := func(err error) ([]string, map[string]string) {
		for _, p := range paths {
			failed[p] = "not ingested: " + err.Error()
		}
		return nil, failed
	}
	cfg, err := f.Config()
	if err != nil {
		return failAll(err)
	}
	st, err := f.Store()
	if err != nil {
		return failAll(err)
	}
	ix, err := corpus.NewIndex(cfg, st, f)
	if err != nil {
		return failAll(err)
	}
	defer ix.Close()
	in := corpus.NewIngester(cfg, ix)
	targets, bad := in.Collect(paths)
	results, err := in.Ingest(ctx, targets)
	byPath := map[string]research.FileResult{}
	for _, r := range append(results, bad...) {
		byPath[r.Path] = r
	}
	var done []research.FileResult
	added := false
	for _, p := range paths {
		r, found := byPath[p]
		if abs, aerr := filepath.Abs(p); !found && aerr == nil {
			r, found = byPath[abs]
		}
		switch {
		case found && (r.Status == research.StatusIngested || r.Status == research.StatusUnchanged):
			ok = append(ok, p)
			done = append(done, r)
			added = added || r.Status == research.StatusIngested
		case found:
			failed[p] = r.Reason
		case ctx.Err() != nil:
			failed[p] = "not ingested: the daemon is stopping; send it again later"
		case err != nil:
			failed[p] = "not ingested: " + err.Error()
		default:
			failed[p] = "not ingested"
		}
	}
	// Clears what earlier runs recorded about these paths; the failed
	// ones are not recorded, their files are deleted.
	_ = in.SettleFailures(context.WithoutCancel(ctx), done)
	if added {
		wake.wake()
	}
	return ok, failed
}
