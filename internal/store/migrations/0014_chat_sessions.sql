-- Which session a daemon chat continues after `/session new|child|<id>`.
-- A chat without a row uses the session named after it (xmpp:<jid>,
-- telegram:<chat>…). The column is not called session_id so that
-- `session clean-research` (which empties every session_id table) keeps
-- the binding; deleting the session deletes it.
CREATE TABLE chat_sessions (
    conversation     TEXT PRIMARY KEY,
    bound_session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    updated_at       TEXT NOT NULL
);
