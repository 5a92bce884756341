-- Scheduled questions (asky job) and their runs. A job owns a session, so
-- each run is a history turn there. next_run_ms NULL means nothing is
-- scheduled (a manual job, or an --at job that ran).
CREATE TABLE jobs (
    id            INTEGER PRIMARY KEY,
    question      TEXT NOT NULL,
    schedule_kind TEXT NOT NULL,
    schedule      TEXT NOT NULL DEFAULT '',
    research      TEXT NOT NULL DEFAULT '',
    notify        TEXT NOT NULL DEFAULT '',
    session_id    INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
    max_seconds   INTEGER NOT NULL DEFAULT 0,
    max_cost_usd  REAL NOT NULL DEFAULT 0,
    created_ms    INTEGER NOT NULL,
    next_run_ms   INTEGER
);
CREATE TABLE job_runs (
    id           INTEGER PRIMARY KEY,
    job_id       INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    trigger      TEXT NOT NULL,
    attempt      INTEGER NOT NULL DEFAULT 1,
    status       TEXT NOT NULL,
    started_ms   INTEGER NOT NULL,
    finished_ms  INTEGER,
    history_id   INTEGER REFERENCES turns(id) ON DELETE SET NULL,
    cost_usd     REAL,
    error        TEXT NOT NULL DEFAULT '',
    notify_error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX job_runs_job ON job_runs(job_id, id);
CREATE INDEX jobs_next ON jobs(next_run_ms) WHERE next_run_ms IS NOT NULL;
