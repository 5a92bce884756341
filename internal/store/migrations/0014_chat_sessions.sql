-- Which session a daemon chat continues after `/session new|child|<id>`.
-- A chat without a row uses the session named after it (xmpp:<jid>,
-- telegram:<chat>…). The columns are not called session_id so that
-- `session clean-research` (which empties every session_id table) keeps
-- them; deleting the session deletes its rows.
CREATE TABLE chat_sessions (
    conversation     TEXT PRIMARY KEY,
    bound_session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    updated_at       TEXT NOT NULL
);
-- The sessions a chat started with `/session new|child`: the only ones
-- besides its default session that its `/session clear` may empty.
CREATE TABLE chat_session_owners (
    owned_session_id INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    conversation     TEXT NOT NULL
);
