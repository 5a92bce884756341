-- Core schema: sessions, turns (one question + answer), the messages of each
-- turn (user, assistant, tool calls and results) and per-call LLM usage.
CREATE TABLE sessions (
    id                 INTEGER PRIMARY KEY,
    name               TEXT,
    model              TEXT NOT NULL DEFAULT '',
    created_at         TEXT NOT NULL,
    last_used_at       TEXT NOT NULL,
    compacted_summary  TEXT NOT NULL DEFAULT '',
    compacted_through  INTEGER NOT NULL DEFAULT 0,
    max_turns          INTEGER NOT NULL DEFAULT 0,
    memory_auto_extract INTEGER NOT NULL DEFAULT 0,
    research_mode      INTEGER NOT NULL DEFAULT 0,
    research_source_mode TEXT NOT NULL DEFAULT '',
    research_paths     TEXT NOT NULL DEFAULT '[]',
    shortlist_override TEXT NOT NULL DEFAULT '',
    query_defaults     TEXT NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX sessions_name ON sessions(name) WHERE name IS NOT NULL;

CREATE TABLE turns (
    id             INTEGER PRIMARY KEY,
    session_id     INTEGER REFERENCES sessions(id) ON DELETE CASCADE,
    created_at     TEXT NOT NULL,
    model          TEXT NOT NULL DEFAULT '',
    query          TEXT NOT NULL,
    answer         TEXT NOT NULL DEFAULT '',
    -- complete | interrupted | error
    status         TEXT NOT NULL DEFAULT 'complete',
    error          TEXT NOT NULL DEFAULT '',
    elapsed_ms     INTEGER NOT NULL DEFAULT 0,
    query_summary  TEXT NOT NULL DEFAULT '',
    answer_summary TEXT NOT NULL DEFAULT '',
    sources        TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX turns_session ON turns(session_id, id);
CREATE INDEX turns_created ON turns(created_at);

CREATE TABLE messages (
    id           INTEGER PRIMARY KEY,
    turn_id      INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,
    role         TEXT NOT NULL,
    content      TEXT NOT NULL DEFAULT '',
    tool_calls   TEXT NOT NULL DEFAULT '',
    tool_call_id TEXT NOT NULL DEFAULT '',
    name         TEXT NOT NULL DEFAULT '',
    UNIQUE(turn_id, seq)
);

CREATE TABLE llm_calls (
    id                INTEGER PRIMARY KEY,
    turn_id           INTEGER REFERENCES turns(id) ON DELETE CASCADE,
    created_at        TEXT NOT NULL,
    purpose           TEXT NOT NULL DEFAULT 'main',
    model             TEXT NOT NULL,
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd          REAL NOT NULL DEFAULT 0,
    latency_ms        INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX llm_calls_turn ON llm_calls(turn_id);
