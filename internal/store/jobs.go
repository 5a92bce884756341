package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Job is a scheduled question.
type Job struct {
	ID       int64
	Question string
	// ScheduleKind is "every", "cron", "at" or "manual"; Schedule its
	// value ("1d", "0 7 * * 1-5", an RFC 3339 time, "").
	ScheduleKind string
	Schedule     string
	// Research is "", "web" or a local path (research mode over it).
	Research string
	// Notify is "", "file:PATH", "xmpp:JID" or "telegram:CHAT".
	Notify     string
	SessionID  int64
	MaxSeconds int
	MaxCostUSD float64
	Created    time.Time
	// NextRun is zero when nothing is scheduled.
	NextRun time.Time
}

// Run statuses of a job.
const (
	RunRunning     = "running"
	RunOK          = "ok"
	RunError       = "error"
	RunInterrupted = "interrupted"
)

// JobRun is one run of a job.
type JobRun struct {
	ID    int64
	JobID int64
	// Trigger is "schedule", "missed", "manual" or "retry".
	Trigger  string
	Attempt  int
	Status   string
	Started  time.Time
	Finished time.Time
	// HistoryID is the turn the run answered with (0: none).
	HistoryID int64
	// CostUSD is nil when no priced call was made.
	CostUSD     *float64
	Error       string
	NotifyError string
}

func msOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

func fromMS(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return time.UnixMilli(v.Int64)
}

// CreateJob inserts j and sets its ID.
func (s *Store) CreateJob(ctx context.Context, j *Job) error {
	if j.Created.IsZero() {
		j.Created = s.now()
	}
	// A job's runs are turns of session "job-ID", kept after the job is
	// removed: the id is past every such session too, so a new job never
	// takes over (and answers with the context of) a removed job's session.
	res, err := s.db.ExecContext(ctx, `INSERT INTO jobs(id, question, schedule_kind, schedule, research, notify, session_id, max_seconds, max_cost_usd, created_ms, next_run_ms)
		VALUES(1 + MAX(COALESCE((SELECT MAX(id) FROM jobs), 0),
			COALESCE((SELECT MAX(CAST(substr(name, 5) AS INTEGER)) FROM sessions WHERE name GLOB 'job-[0-9]*'), 0)),
			?,?,?,?,?,?,?,?,?,?)`, j.Question, j.ScheduleKind, j.Schedule, j.Research, j.Notify, nullID(j.SessionID), j.MaxSeconds, j.MaxCostUSD,
		j.Created.UnixMilli(), msOrNil(j.NextRun))
	if err != nil {
		return s.wrap(err)
	}
	j.ID, _ = res.LastInsertId()
	return nil
}

const jobSelect = `SELECT id, question, schedule_kind, schedule, research, notify, COALESCE(session_id, 0), max_seconds, max_cost_usd, created_ms, next_run_ms FROM jobs`

func scanJob(r scanner) (*Job, error) {
	var j Job
	var created int64
	var next sql.NullInt64
	if err := r.Scan(&j.ID, &j.Question, &j.ScheduleKind, &j.Schedule, &j.Research, &j.Notify, &j.SessionID, &j.MaxSeconds, &j.MaxCostUSD, &created, &next); err != nil {
		return nil, err
	}
	j.Created, j.NextRun = time.UnixMilli(created), fromMS(next)
	return &j, nil
}

// GetJob loads a job.
func (s *Store) GetJob(ctx context.Context, id int64) (*Job, error) {
	j, err := scanJob(s.db.QueryRowContext(ctx, jobSelect+` WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("job %d: %w", id, ErrNotFound)
	}
	return j, s.wrap(err)
}

// ListJobs returns every job, oldest first.
func (s *Store) ListJobs(ctx context.Context) ([]*Job, error) {
	out, err := queryAll(ctx, s.db, scanJob, jobSelect+` ORDER BY id`)
	return out, s.wrap(err)
}

// DueJobs returns the jobs whose next run is at or before now.
func (s *Store) DueJobs(ctx context.Context, now time.Time) ([]*Job, error) {
	out, err := queryAll(ctx, s.db, scanJob, jobSelect+` WHERE next_run_ms IS NOT NULL AND next_run_ms <= ? ORDER BY next_run_ms, id`, now.UnixMilli())
	return out, s.wrap(err)
}

// NextJobRun is the earliest scheduled run (zero: none).
func (s *Store) NextJobRun(ctx context.Context) (time.Time, error) {
	var next sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT MIN(next_run_ms) FROM jobs WHERE next_run_ms IS NOT NULL`).Scan(&next)
	return fromMS(next), s.wrap(err)
}

// SetJobNextRun schedules the job's next run (zero: none).
func (s *Store) SetJobNextRun(ctx context.Context, id int64, next time.Time) error {
	_, err := s.db.ExecContext(ctx, `UPDATE jobs SET next_run_ms = ? WHERE id = ?`, msOrNil(next), id)
	return s.wrap(err)
}

// DeleteJob removes a job and its runs (the history turns stay).
func (s *Store) DeleteJob(ctx context.Context, id int64) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM jobs WHERE id = ?`, id)
	if err != nil {
		return s.wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("job %d: %w", id, ErrNotFound)
	}
	return nil
}

// ErrJobBusy means the job has a run in progress.
var ErrJobBusy = errors.New("a run of this job is in progress")

// StartJobRun records a running run, unless the job already has one that
// started after staleBefore (one run at a time per job, across
// processes). Older "running" rows are left by a crash.
func (s *Store) StartJobRun(ctx context.Context, r *JobRun, staleBefore time.Time) error {
	if r.Started.IsZero() {
		r.Started = s.now()
	}
	if r.Attempt == 0 {
		r.Attempt = 1
	}
	r.Status = RunRunning
	res, err := s.db.ExecContext(ctx, `INSERT INTO job_runs(job_id, trigger, attempt, status, started_ms)
		SELECT ?,?,?,?,? WHERE NOT EXISTS (SELECT 1 FROM job_runs WHERE job_id = ? AND status = 'running' AND started_ms > ?)`,
		r.JobID, r.Trigger, r.Attempt, r.Status, r.Started.UnixMilli(), r.JobID, staleBefore.UnixMilli())
	if err != nil {
		return s.wrap(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrJobBusy
	}
	r.ID, _ = res.LastInsertId()
	return nil
}

// FinishJobRun stores the outcome of r.
func (s *Store) FinishJobRun(ctx context.Context, r *JobRun) error {
	if r.Finished.IsZero() {
		r.Finished = s.now()
	}
	_, err := s.db.ExecContext(ctx, `UPDATE job_runs SET status = ?, finished_ms = ?, history_id = ?, cost_usd = ?, error = ?, notify_error = ? WHERE id = ?`,
		r.Status, r.Finished.UnixMilli(), nullID(r.HistoryID), r.CostUSD, r.Error, r.NotifyError, r.ID)
	return s.wrap(err)
}

// InterruptRunningJobs marks every run still "running" as interrupted
// (the daemon starts: no run of a previous process is alive) and returns
// them.
func (s *Store) InterruptRunningJobs(ctx context.Context, at time.Time) ([]*JobRun, error) {
	runs, err := queryAll(ctx, s.db, scanJobRun, jobRunSelect+` WHERE status = 'running' ORDER BY id`)
	if err != nil {
		return nil, s.wrap(err)
	}
	for _, r := range runs {
		r.Status, r.Finished, r.Error = RunInterrupted, at, "interrupted: asky stopped during the run"
		if err := s.FinishJobRun(ctx, r); err != nil {
			return nil, err
		}
	}
	return runs, nil
}

// RetryableRuns are the runs to retry when the daemon starts: each job's
// latest run when it was interrupted on its first attempt (a scheduled
// run, not one a user started and stopped).
func (s *Store) RetryableRuns(ctx context.Context) ([]*JobRun, error) {
	out, err := queryAll(ctx, s.db, scanJobRun, jobRunSelect+` r WHERE r.status = 'interrupted' AND r.attempt = 1 AND r.trigger != 'manual'
		AND r.id = (SELECT MAX(id) FROM job_runs WHERE job_id = r.job_id) ORDER BY r.id`)
	return out, s.wrap(err)
}

const jobRunSelect = `SELECT id, job_id, trigger, attempt, status, started_ms, finished_ms, COALESCE(history_id, 0), cost_usd, error, notify_error FROM job_runs`

func scanJobRun(r scanner) (*JobRun, error) {
	var jr JobRun
	var started int64
	var finished sql.NullInt64
	var cost sql.NullFloat64
	if err := r.Scan(&jr.ID, &jr.JobID, &jr.Trigger, &jr.Attempt, &jr.Status, &started, &finished, &jr.HistoryID, &cost, &jr.Error, &jr.NotifyError); err != nil {
		return nil, err
	}
	jr.Started, jr.Finished = time.UnixMilli(started), fromMS(finished)
	if cost.Valid {
		jr.CostUSD = &cost.Float64
	}
	return &jr, nil
}

// JobRuns returns the runs of a job, newest first.
func (s *Store) JobRuns(ctx context.Context, jobID int64, limit int) ([]*JobRun, error) {
	out, err := queryAll(ctx, s.db, scanJobRun, jobRunSelect+` WHERE job_id = ? ORDER BY id DESC LIMIT ?`, jobID, limit)
	return out, s.wrap(err)
}

// SessionCostBetween sums the priced usage of a session in [from, to]
// (the cost of one job run); ok is false when nothing was priced.
func (s *Store) SessionCostBetween(ctx context.Context, sessionID int64, from, to time.Time) (usd float64, ok bool, err error) {
	var sum sql.NullFloat64
	err = s.db.QueryRowContext(ctx, `SELECT SUM(cost_usd) FROM usage_events WHERE session_id = ? AND at_ms BETWEEN ? AND ?`,
		sessionID, from.UnixMilli(), to.UnixMilli()).Scan(&sum)
	return sum.Float64, sum.Valid, s.wrap(err)
}
