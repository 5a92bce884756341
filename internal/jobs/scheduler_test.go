package jobs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn"
	"github.com/askygo/asky/internal/turn/compose"
)

// clock is a fake clock tests move by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// asker answers every question; with block set, each run waits for a
// value on it (or for its context to end).
type asker struct {
	mu    sync.Mutex
	asked []compose.Request
	block chan struct{}
	// spend records a priced call of this cost in the job's session.
	spend float64
	st    *store.Store
}

func (a *asker) Run(ctx context.Context, q compose.Request, _ func(turn.Event)) (*turn.Result, error) {
	a.mu.Lock()
	a.asked = append(a.asked, q)
	a.mu.Unlock()
	if a.block != nil {
		select {
		case <-a.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if a.spend > 0 {
		sess := &store.Session{Name: q.SessionName}
		if err := a.st.CreateSession(ctx, sess); err != nil {
			return nil, err
		}
		cost := a.spend
		if err := a.st.RecordUsage(ctx, &store.UsageEvent{At: t0, SessionID: sess.ID, Model: "m", CostUSD: &cost}); err != nil {
			return nil, err
		}
	}
	return &turn.Result{Answer: "answer to " + q.Question}, nil
}

func (a *asker) count() int { a.mu.Lock(); defer a.mu.Unlock(); return len(a.asked) }

var t0 = time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)

func fixture(t *testing.T) (*store.Store, *Scheduler, *asker, *clock) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clk := &clock{t: t0}
	a := &asker{st: st}
	return st, &Scheduler{Store: st, Asker: a, Now: clk.Now}, a, clk
}

func addJob(t *testing.T, st *store.Store, j *store.Job) *store.Job {
	t.Helper()
	if j.Question == "" {
		j.Question = "what changed in Go?"
	}
	if err := st.CreateJob(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	return j
}

func runs(t *testing.T, st *store.Store, id int64) []*store.JobRun {
	t.Helper()
	rs, err := st.JobRuns(context.Background(), id, 100)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestDueJobRunsAndIsRescheduled(t *testing.T) {
	st, s, a, clk := fixture(t)
	ctx := context.Background()
	j := addJob(t, st, &store.Job{ScheduleKind: Every, Schedule: "1d", NextRun: t0.Add(time.Hour)})
	if err := s.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	s.Wait()
	if a.count() != 0 {
		t.Fatal("a job ran before it was due")
	}
	clk.Set(t0.Add(time.Hour))
	s.RunDue(ctx)
	s.Wait()
	rs := runs(t, st, j.ID)
	if a.count() != 1 || len(rs) != 1 || rs[0].Status != store.RunOK || rs[0].Trigger != "schedule" {
		t.Fatalf("runs %+v", rs)
	}
	if q := a.asked[0]; q.SessionName != "job-1" || q.Question != j.Question {
		t.Fatalf("request %+v", q)
	}
	got, _ := st.GetJob(ctx, j.ID)
	if want := t0.Add(25 * time.Hour); !got.NextRun.Equal(want) {
		t.Fatalf("next run %v, want %v", got.NextRun, want)
	}
}

func TestMissedRunsRunOnce(t *testing.T) {
	st, s, a, clk := fixture(t)
	ctx := context.Background()
	j := addJob(t, st, &store.Job{ScheduleKind: Every, Schedule: "1d", NextRun: t0.Add(-5*24*time.Hour + time.Hour)})
	for range 3 {
		s.RunDue(ctx)
		s.Wait()
	}
	rs := runs(t, st, j.ID)
	if a.count() != 1 || len(rs) != 1 || rs[0].Trigger != "missed" {
		t.Fatalf("%d asks, runs %+v", a.count(), rs)
	}
	got, _ := st.GetJob(ctx, j.ID)
	if want := t0.Add(time.Hour); !got.NextRun.Equal(want) {
		t.Fatalf("next run %v, want %v (the rhythm kept, the missed slots skipped)", got.NextRun, want)
	}
	// A one-off job runs once and is then unscheduled.
	at := addJob(t, st, &store.Job{ScheduleKind: At, Schedule: t0.Format(time.RFC3339), NextRun: t0})
	clk.Set(t0.Add(time.Minute))
	s.RunDue(ctx)
	s.Wait()
	if got, _ := st.GetJob(ctx, at.ID); !got.NextRun.IsZero() || len(runs(t, st, at.ID)) != 1 {
		t.Fatalf("at job: next %v runs %d", got.NextRun, len(runs(t, st, at.ID)))
	}
}

func TestOverlappingRunsAreSkipped(t *testing.T) {
	st, s, a, clk := fixture(t)
	ctx := context.Background()
	a.block = make(chan struct{})
	j := addJob(t, st, &store.Job{ScheduleKind: Every, Schedule: "1m", NextRun: t0})
	s.RunDue(ctx)
	waitFor(t, func() bool { return a.count() == 1 })
	// Due again while the first run is still going: not started twice,
	// neither here nor by another process.
	clk.Set(t0.Add(5 * time.Minute))
	s.RunDue(ctx)
	other := &Scheduler{Store: st, Asker: a, Now: clk.Now}
	if _, _, err := other.RunJob(ctx, j, "manual", 1); !errors.Is(err, store.ErrJobBusy) {
		t.Fatalf("second process: %v", err)
	}
	close(a.block)
	s.Wait()
	if a.count() != 1 || len(runs(t, st, j.ID)) != 1 {
		t.Fatalf("%d asks, %d runs", a.count(), len(runs(t, st, j.ID)))
	}
	// Once it ended, the job runs again at its next slot.
	clk.Set(t0.Add(6 * time.Minute))
	s.RunDue(ctx)
	s.Wait()
	if a.count() != 2 {
		t.Fatalf("%d asks after the overlap", a.count())
	}
}

func TestRestartRetriesAnInterruptedRunOnce(t *testing.T) {
	st, s, a, _ := fixture(t)
	ctx := context.Background()
	j := addJob(t, st, &store.Job{ScheduleKind: Manual})
	// A previous daemon died during a run.
	if err := st.StartJobRun(ctx, &store.JobRun{JobID: j.ID, Trigger: "schedule", Started: t0.Add(-time.Minute)}, t0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	s.Wait()
	rs := runs(t, st, j.ID)
	if a.count() != 1 || len(rs) != 2 || rs[0].Trigger != "retry" || rs[0].Attempt != 2 || rs[0].Status != store.RunOK ||
		rs[1].Status != store.RunInterrupted || !strings.Contains(rs[1].Error, "interrupted") {
		t.Fatalf("runs %+v %+v", rs[0], rs[1])
	}
	// The retry itself interrupted: not retried again.
	st.StartJobRun(ctx, &store.JobRun{JobID: j.ID, Trigger: "retry", Attempt: 2, Started: t0}, t0.Add(-time.Hour))
	s2 := &Scheduler{Store: st, Asker: a, Now: s.Now}
	s2.Recover(ctx)
	s2.Wait()
	if a.count() != 1 || runs(t, st, j.ID)[0].Status != store.RunInterrupted {
		t.Fatalf("retried twice: %d asks", a.count())
	}
}

// A daemon stopping mid-run records the run as interrupted; the next
// start retries it once.
func TestStopDuringRunIsRetriedAtStart(t *testing.T) {
	st, s, a, _ := fixture(t)
	a.block = make(chan struct{})
	j := addJob(t, st, &store.Job{ScheduleKind: Every, Schedule: "1d", NextRun: t0})
	ctx, cancel := context.WithCancel(context.Background())
	s.RunDue(ctx)
	waitFor(t, func() bool { return a.count() == 1 })
	cancel()
	s.Wait()
	if rs := runs(t, st, j.ID); len(rs) != 1 || rs[0].Status != store.RunInterrupted {
		t.Fatalf("runs %+v", rs)
	}
	a.block = nil
	s2 := &Scheduler{Store: st, Asker: a, Now: s.Now}
	s2.Recover(context.Background())
	s2.Wait()
	s3 := &Scheduler{Store: st, Asker: a, Now: s.Now}
	s3.Recover(context.Background())
	s3.Wait()
	if rs := runs(t, st, j.ID); a.count() != 2 || len(rs) != 2 || rs[0].Trigger != "retry" || rs[0].Status != store.RunOK {
		t.Fatalf("%d asks, runs %+v", a.count(), rs)
	}
}

func TestRunBudgetsAndNotify(t *testing.T) {
	st, s, a, _ := fixture(t)
	ctx := context.Background()
	dir := t.TempDir()
	out := filepath.Join(dir, "news.md")
	j := addJob(t, st, &store.Job{ScheduleKind: Manual, Notify: "file:" + out, MaxCostUSD: 0.5})
	run, _, err := s.RunJob(ctx, j, "manual", 1)
	if err != nil || run.Status != store.RunOK || run.NotifyError != "" {
		t.Fatalf("run %+v err %v", run, err)
	}
	if raw, _ := os.ReadFile(out); !strings.Contains(string(raw), "job 1: what changed in Go?\n\nanswer to what changed in Go?") {
		t.Fatalf("notify file: %q", raw)
	}
	if a.asked[0].MaxCostUSD != 0.5 {
		t.Fatalf("cost budget not passed: %+v", a.asked[0])
	}
	x := addJob(t, st, &store.Job{ScheduleKind: Manual, Notify: "xmpp:bob@example.org"})
	run, _, _ = s.RunJob(ctx, x, "manual", 1)
	if run.Status != store.RunOK || run.NotifyError != "notify target xmpp:bob@example.org not available: transport not configured" {
		t.Fatalf("run %+v", run)
	}
	// A transport that registered a notifier gets the answer.
	var got Message
	s.Notifiers = map[string]Notifier{"xmpp": NotifierFunc(func(_ context.Context, to Target, m Message) error { got = m; return nil })}
	if run, _, _ = s.RunJob(ctx, x, "manual", 1); run.NotifyError != "" || got.JobID != x.ID {
		t.Fatalf("run %+v got %+v", run, got)
	}
	// A run whose one call passed the cost budget is ok and says so.
	a.spend = 0.02
	pricey := addJob(t, st, &store.Job{ScheduleKind: Manual, MaxCostUSD: 0.01})
	run, _, _ = s.RunJob(ctx, pricey, "manual", 1)
	a.spend = 0
	if run.Status != store.RunOK || run.Error != "over budget: spent $0.0200 of $0.01 (the last call finished the answer)" {
		t.Fatalf("run %+v", run)
	}
	// The time budget stops a run that takes too long.
	a.block = make(chan struct{})
	slow := addJob(t, st, &store.Job{ScheduleKind: Manual, MaxSeconds: 1})
	run, _, _ = s.RunJob(ctx, slow, "manual", 1)
	if run.Status != store.RunError || run.Error != "timed out after 1s (the job's time budget)" {
		t.Fatalf("run %+v", run)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for i := 0; i < 500 && !ok(); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if !ok() {
		t.Fatal("timed out")
	}
}
