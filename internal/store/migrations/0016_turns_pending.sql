-- Pending turns are looked for on every open (store/pending.go), so a turn
-- whose process was killed reads as interrupted everywhere at once; this
-- partial index keeps that lookup free however long the history grows.
CREATE INDEX turns_pending ON turns(status) WHERE status = 'pending';
