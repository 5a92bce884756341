package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/cli/corpus"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/turn"
	"github.com/askygo/asky/internal/turn/compose"
)

// deepWorld is a home with a hash-v1 deep tier and two documents the
// CLI ingested without it.
func deepWorld(t *testing.T) (*cmdutil.Factory, *config.Config) {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[research.deep]\nprovider = \"builtin\"\nmodel = \"hash-v1\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join(t.TempDir(), "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"a.md": "# A\n\nThe pager rolls back a transaction.\n", "b.md": "# B\n\nThe zebra grazes.\n"} {
		if err := os.WriteFile(filepath.Join(docs, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ios, _, _, _ := iostreams.Test()
	f := cmdutil.New(ios)
	f.Getenv = func(k string) string {
		if k == "ASKY_HOME" {
			return home
		}
		return ""
	}
	t.Cleanup(f.Close)
	cmd := corpus.NewCmdCorpus(f)
	cmd.SetArgs([]string{"ingest", "--no-deep", docs})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.Config()
	if err != nil {
		t.Fatal(err)
	}
	return f, cfg
}

// The daemon fills the deep tier of a corpus the CLI ingested, and does
// nothing (not even loading the model) once it is complete.
func TestDaemonFillsDeepTier(t *testing.T) {
	f, cfg := deepWorld(t)
	ctx := context.Background()
	var idle daemon.Busy
	if msg := fillDeepOnce(ctx, f, cfg, &idle); !strings.HasPrefix(msg, "deep tier: embedded 2 chunks in ") {
		t.Fatalf("first pass: %q", msg)
	}
	if msg := fillDeepOnce(ctx, f, cfg, &idle); msg != "" {
		t.Fatalf("a complete deep tier: %q", msg)
	}
}

// watchedBusy reports on waits each time it makes its caller wait.
type watchedBusy struct {
	*daemon.Busy
	waits chan struct{}
}

func (w watchedBusy) Idle(ctx context.Context) error {
	if w.InFlight() > 0 {
		w.waits <- struct{}{}
	}
	return w.Busy.Idle(ctx)
}

// A pass that finds a turn in flight embeds nothing until it ends.
func TestDaemonDeepPassWaitsForTurns(t *testing.T) {
	f, cfg := deepWorld(t)
	ctx := context.Background()
	svc := daemon.NewService(nil, 0)
	end := svc.Busy().Begin() // a turn in flight
	fg := watchedBusy{Busy: svc.Busy(), waits: make(chan struct{})}
	done := make(chan string, 1)
	go func() { done <- fillDeepOnce(ctx, f, cfg, fg) }()
	select {
	case <-fg.waits:
	case msg := <-done:
		t.Fatalf("the pass ran during a turn: %q", msg)
	case <-time.After(time.Minute):
		t.Fatal("the pass neither waited nor finished")
	}
	st, err := f.Store()
	if err != nil {
		t.Fatal(err)
	}
	ix, err := corpus.NewIndex(cfg, st, f)
	if err != nil {
		t.Fatal(err)
	}
	if cov, _, err := ix.Deep.Peek(ctx); err != nil || cov.Vectors != 0 {
		t.Fatalf("%d deep vectors (%v) while the turn runs, want 0", cov.Vectors, err)
	}
	end()
	if msg := <-done; !strings.HasPrefix(msg, "deep tier: embedded 2 chunks in ") {
		t.Fatalf("after the turn: %q", msg)
	}
}

// askerFunc is a jobs.Asker.
type askerFunc func(ctx context.Context, q compose.Request, emit func(turn.Event)) (*turn.Result, error)

func (f askerFunc) Run(ctx context.Context, q compose.Request, emit func(turn.Event)) (*turn.Result, error) {
	return f(ctx, q, emit)
}

// A scheduled job's run counts as a turn in flight.
func TestJobRunsKeepTheDaemonBusy(t *testing.T) {
	var busy daemon.Busy
	during := -1
	a := busyAsker{busy: &busy, Asker: askerFunc(func(context.Context, compose.Request, func(turn.Event)) (*turn.Result, error) {
		during = busy.InFlight()
		return &turn.Result{}, nil
	})}
	if _, err := a.Run(context.Background(), compose.Request{}, nil); err != nil {
		t.Fatal(err)
	}
	if during != 1 || busy.InFlight() != 0 {
		t.Fatalf("%d in flight during the job's run, %d after; want 1, 0", during, busy.InFlight())
	}
}
