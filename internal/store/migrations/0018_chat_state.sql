-- A daemon chat's open yes/no question (a voice transcript waiting for the
-- user's "yes", a `/session clear`), one per chat or room, kept so that a
-- daemon restart does not turn the "yes" into a question for the model.
-- question is what a yes asks ('' for an action that cannot outlive the
-- daemon: its yes is told to send the command again). created_at is
-- fixed-width UTC, so the daemon ignores and prunes questions past their
-- time limit by comparing text.
CREATE TABLE chat_confirms (
    conversation TEXT PRIMARY KEY,
    what         TEXT NOT NULL,
    question     TEXT NOT NULL,
    no_reply     TEXT NOT NULL,
    created_at   TEXT NOT NULL
);
CREATE INDEX chat_confirms_created ON chat_confirms(created_at);
-- A chat's inline overrides (```toml blocks: default_model,
-- summarization_model, [user_prompts]) as JSON, with the session they were
-- set in, as the original keeps them (session_override_files): switching
-- back to the session restores them, a new session starts without. The
-- column is not called session_id so that `session clean-research` keeps
-- them; deleting the session deletes them.
CREATE TABLE chat_overrides (
    override_session_id INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    settings            TEXT NOT NULL,
    updated_at          TEXT NOT NULL
);
