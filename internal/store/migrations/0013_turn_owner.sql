-- The process that saved a pending turn ("host pid start-time"), so a turn
-- whose process was killed (kill -9, power loss) is shown as interrupted
-- instead of pending for ever. Empty for rows written before this column.
ALTER TABLE turns ADD COLUMN owner TEXT NOT NULL DEFAULT '';
