package research

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/askygo/asky/internal/store"
)

// StatusFailedBefore is a file that failed again, unchanged since it
// failed last time: reported as "unchanged (failed before)", not as a new
// failure, so rerunning an ingest over a tree with a few unreadable files
// is quiet and succeeds.
const StatusFailedBefore = "failed_before"

// SettleFailures compares failed results with the failures recorded by
// earlier runs. A failure of a file that still exists and has not changed
// (same size, mtime and reason) becomes StatusFailedBefore; other
// failures are recorded for next time; files that now ingest (or are
// unchanged) have their record cleared. Failures that say nothing about
// the file (embedding errors: the provider was down) are never recorded.
// Files are retried every run either way, so fixing permissions is
// enough for the next run to pick a file up.
func (in *Ingester) SettleFailures(ctx context.Context, results []FileResult) error {
	st := in.Index.St
	before, err := st.CorpusFailures(ctx)
	if err != nil {
		return fmt.Errorf("reading earlier ingest failures: %w", err)
	}
	var updates []store.FailureUpdate
	for i := range results {
		r := &results[i]
		switch r.Status {
		case StatusIngested, StatusUnchanged:
			if _, ok := before[r.Path]; ok {
				updates = append(updates, store.FailureUpdate{Path: r.Path})
			}
		case StatusFailed:
			if strings.HasPrefix(r.Reason, "embedding:") {
				continue
			}
			fp := failureFingerprint(r.Path, r.Reason)
			switch {
			case fp == "":
			case before[r.Path] == fp:
				r.Status = StatusFailedBefore
			default:
				updates = append(updates, store.FailureUpdate{Path: r.Path, Fingerprint: fp, Reason: r.Reason})
			}
		}
	}
	return st.UpdateCorpusFailures(ctx, updates)
}

// failureFingerprint identifies a failed file's state: size, mtime and
// the reason; "" for a file that does not exist (a mistyped path is a new
// error every time).
func failureFingerprint(path, reason string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d:%d:%s", fi.Size(), fi.ModTime().UnixNano(), reason)
}
