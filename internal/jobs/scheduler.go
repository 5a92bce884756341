package jobs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn"
	"github.com/askygo/asky/internal/turn/compose"
	"github.com/askygo/asky/internal/usage"
)

// Store is the job state the scheduler needs (*store.Store).
type Store interface {
	GetJob(ctx context.Context, id int64) (*store.Job, error)
	DueJobs(ctx context.Context, now time.Time) ([]*store.Job, error)
	NextJobRun(ctx context.Context) (time.Time, error)
	SetJobNextRun(ctx context.Context, id int64, next time.Time) error
	StartJobRun(ctx context.Context, r *store.JobRun, staleBefore time.Time) error
	FinishJobRun(ctx context.Context, r *store.JobRun) error
	InterruptRunningJobs(ctx context.Context, at time.Time) ([]*store.JobRun, error)
	RetryableRuns(ctx context.Context) ([]*store.JobRun, error)
	SessionByName(ctx context.Context, name string) (*store.Session, error)
	SessionCostBetween(ctx context.Context, sessionID int64, from, to time.Time) (float64, bool, error)
}

// Asker runs a question through the orchestration core (*compose.Core).
type Asker interface {
	Run(ctx context.Context, q compose.Request, emit func(turn.Event)) (*turn.Result, error)
}

// DefaultMaxSeconds bounds a run when the job sets no limit.
const DefaultMaxSeconds = 600

// tick is the longest the loop sleeps: a job added by the CLI while the
// daemon sleeps is picked up within it.
const tick = 30 * time.Second

// Scheduler runs due jobs: one run at a time per job, each a turn in the
// job's session, its answer delivered to the notify target.
type Scheduler struct {
	Store Store
	Asker Asker
	Now   func() time.Time
	// Notifiers deliver by target kind; file: is always available.
	Notifiers map[string]Notifier
	// Log gets one line per run (nil: discarded).
	Log func(string)

	mu      sync.Mutex
	running map[int64]bool
	wg      sync.WaitGroup
}

// SessionName is the session a job's runs are turns of.
func SessionName(jobID int64) string { return "job-" + strconv.FormatInt(jobID, 10) }

func (s *Scheduler) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Scheduler) logf(format string, args ...any) {
	if s.Log != nil {
		s.Log(fmt.Sprintf(format, args...))
	}
}

// Loop runs jobs until ctx ends: first the recovery of runs a previous
// process left, then every due job, waking at the next due time.
func (s *Scheduler) Loop(ctx context.Context) {
	defer s.wg.Wait()
	if err := s.Recover(ctx); err != nil {
		s.logf("jobs: recovery: %v", err)
	}
	for {
		if err := s.RunDue(ctx); err != nil {
			s.logf("jobs: %v", err)
		}
		wait := tick
		if next, err := s.Store.NextJobRun(ctx); err == nil && !next.IsZero() {
			wait = min(wait, max(next.Sub(s.now()), time.Second))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// Wait blocks until the runs started by RunDue and Recover have ended.
func (s *Scheduler) Wait() { s.wg.Wait() }

// Recover marks the runs a previous process left "running" as
// interrupted, then retries once each job whose latest scheduled run was
// interrupted (by a crash or a daemon stop); a retry interrupted again
// is not retried.
func (s *Scheduler) Recover(ctx context.Context) error {
	if _, err := s.Store.InterruptRunningJobs(ctx, s.now()); err != nil {
		return err
	}
	runs, err := s.Store.RetryableRuns(ctx)
	if err != nil {
		return err
	}
	for _, r := range runs {
		j, err := s.Store.GetJob(ctx, r.JobID)
		if err != nil {
			continue
		}
		s.logf("job %d: retrying run %d, interrupted by a restart", r.JobID, r.ID)
		s.spawn(ctx, j, "retry", r.Attempt+1)
	}
	return nil
}

// RunDue starts every due job that is not running. The next run is
// scheduled before this one starts: however many runs were missed while
// asky was down, a job runs once now.
func (s *Scheduler) RunDue(ctx context.Context) error {
	now := s.now()
	due, err := s.Store.DueJobs(ctx, now)
	if err != nil {
		return err
	}
	for _, j := range due {
		if s.isRunning(j.ID) {
			continue // overlapping: the next slot is set when this run ends
		}
		next, err := Following(j.ScheduleKind, j.Schedule, j.NextRun, now)
		if err != nil {
			s.logf("job %d: %v", j.ID, err)
			next = time.Time{}
		}
		if err := s.Store.SetJobNextRun(ctx, j.ID, next); err != nil {
			return err
		}
		trigger := "schedule"
		if now.Sub(j.NextRun) > 2*tick {
			trigger = "missed"
		}
		s.spawn(ctx, j, trigger, 1)
	}
	return nil
}

func (s *Scheduler) isRunning(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running[id]
}

// spawn runs j in the background unless it is already running here.
func (s *Scheduler) spawn(ctx context.Context, j *store.Job, trigger string, attempt int) {
	s.mu.Lock()
	if s.running == nil {
		s.running = map[int64]bool{}
	}
	if s.running[j.ID] {
		s.mu.Unlock()
		return
	}
	s.running[j.ID] = true
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.running, j.ID)
			s.mu.Unlock()
		}()
		run, _, err := s.RunJob(ctx, j, trigger, attempt)
		switch {
		case errors.Is(err, store.ErrJobBusy):
			s.logf("job %d: skipped, a run is in progress", j.ID)
		case err != nil:
			s.logf("job %d: %v", j.ID, err)
		default:
			s.logf("job %d: run %d %s in %s%s", j.ID, run.ID, run.Status, run.Finished.Sub(run.Started).Round(time.Millisecond), errSuffix(run))
		}
	}()
}

func errSuffix(r *store.JobRun) string {
	out := ""
	if r.Error != "" {
		out += ": " + r.Error
	}
	if r.NotifyError != "" {
		out += "; " + r.NotifyError
	}
	return out
}

// RunJob runs j now, in the caller's goroutine: the answer is a turn in
// the job's session, bounded by the job's time and cost budget, then
// delivered. The returned error is about the bookkeeping (a run already
// in progress, the database); the run's own failure is in run.Error.
func (s *Scheduler) RunJob(ctx context.Context, j *store.Job, trigger string, attempt int) (*store.JobRun, *turn.Result, error) {
	maxSec := j.MaxSeconds
	if maxSec <= 0 {
		maxSec = DefaultMaxSeconds
	}
	limit := time.Duration(maxSec) * time.Second
	run := &store.JobRun{JobID: j.ID, Trigger: trigger, Attempt: attempt, Started: s.now()}
	if err := s.Store.StartJobRun(ctx, run, run.Started.Add(-limit-time.Minute)); err != nil {
		return nil, nil, err
	}
	q := compose.Request{Question: j.Question, SessionName: SessionName(j.ID), MaxCostUSD: j.MaxCostUSD}
	if j.Research != "" {
		q.ResearchSet, q.Research = true, j.Research
	}
	rctx, cancel := context.WithTimeout(ctx, limit)
	res, err := s.Asker.Run(rctx, q, nil)
	cancel()
	run.Finished = s.now()
	run.Status = store.RunOK
	switch {
	case err != nil && ctx.Err() != nil:
		run.Status, run.Error = store.RunInterrupted, "interrupted: asky stopped during the run"
	case err != nil && errors.Is(rctx.Err(), context.DeadlineExceeded):
		run.Status, run.Error = store.RunError, fmt.Sprintf("timed out after %s (the job's time budget)", limit)
	case err != nil:
		run.Status, run.Error = store.RunError, err.Error()
	}
	if res != nil {
		run.HistoryID = res.HistoryID
	}
	if sess, err := s.Store.SessionByName(ctx, q.SessionName); err == nil {
		if usd, ok, err := s.Store.SessionCostBetween(ctx, sess.ID, run.Started, run.Finished); err == nil && ok {
			run.CostUSD = &usd
		}
	}
	if run.Status == store.RunOK && j.MaxCostUSD > 0 && run.CostUSD != nil && *run.CostUSD > j.MaxCostUSD {
		// The budget stops further calls; the call that passed it had
		// already finished the answer, so the run is ok but says so.
		run.Error = fmt.Sprintf("over budget: spent %s of $%g (the last call finished the answer)", usage.Money(*run.CostUSD), j.MaxCostUSD)
	}
	if run.Status == store.RunOK && j.Notify != "" {
		if err := s.notify(ctx, j, res, run.Finished); err != nil {
			run.NotifyError = err.Error()
		}
	}
	// The outcome is stored even when ctx ended (a daemon stopping).
	if err := s.Store.FinishJobRun(context.WithoutCancel(ctx), run); err != nil {
		return run, res, err
	}
	return run, res, nil
}

func (s *Scheduler) notify(ctx context.Context, j *store.Job, res *turn.Result, at time.Time) error {
	kind, addr, _ := strings.Cut(j.Notify, ":")
	to := Target{Kind: kind, Addr: addr}
	n := s.Notifiers[kind]
	if n == nil && kind == "file" {
		n = FileNotifier
	}
	if n == nil {
		return &NotAvailableError{Target: to}
	}
	return n.Notify(ctx, to, Message{JobID: j.ID, Question: j.Question, Answer: res.Answer, At: at})
}
