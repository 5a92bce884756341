-- Piped stdin sent with a question, kept beside the question (not in it,
-- so history lists and search stay about what was asked) and replayed with
-- it when a session or -c continues the conversation.
ALTER TABLE turns ADD COLUMN input TEXT NOT NULL DEFAULT '';
