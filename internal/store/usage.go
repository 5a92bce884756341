package store

import (
	"context"
	"database/sql"
	"time"
)

// UsageEvent is one model call in the usage ledger.
type UsageEvent struct {
	At        time.Time
	SessionID int64
	// SessionName is filled by UsageSince (empty for one-shot calls or a
	// deleted session).
	SessionName      string
	Model            string
	Purpose          string
	PromptTokens     int
	CompletionTokens int
	CacheReadTokens  int
	CacheWriteTokens int
	// CostUSD is nil when the model has no configured prices.
	CostUSD *float64
	// Estimated is set when the server reported no usage (chars/4).
	Estimated bool
}

// RecordUsage appends e to the ledger (At defaults to now).
func (s *Store) RecordUsage(ctx context.Context, e *UsageEvent) error {
	if e.At.IsZero() {
		e.At = s.now()
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO usage_events(at_ms, session_id, model, purpose, prompt_tokens, completion_tokens,
		cache_read_tokens, cache_write_tokens, cost_usd, estimated) VALUES(?,?,?,?,?,?,?,?,?,?)`,
		e.At.UnixMilli(), nullID(e.SessionID), e.Model, e.Purpose, e.PromptTokens, e.CompletionTokens,
		e.CacheReadTokens, e.CacheWriteTokens, e.CostUSD, e.Estimated)
	return s.wrap(err)
}

// UsageSince returns the ledger from since on, oldest first (zero since:
// everything).
func (s *Store) UsageSince(ctx context.Context, since time.Time) ([]UsageEvent, error) {
	from := int64(0)
	if !since.IsZero() {
		from = since.UnixMilli()
	}
	rows, err := s.db.QueryContext(ctx, `SELECT u.at_ms, COALESCE(u.session_id, 0), COALESCE(s.name, ''), u.model, u.purpose,
		u.prompt_tokens, u.completion_tokens, u.cache_read_tokens, u.cache_write_tokens, u.cost_usd, u.estimated
		FROM usage_events u LEFT JOIN sessions s ON s.id = u.session_id WHERE u.at_ms >= ? ORDER BY u.at_ms, u.id`, from)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []UsageEvent
	for rows.Next() {
		var e UsageEvent
		var ms int64
		var cost sql.NullFloat64
		if err := rows.Scan(&ms, &e.SessionID, &e.SessionName, &e.Model, &e.Purpose, &e.PromptTokens, &e.CompletionTokens,
			&e.CacheReadTokens, &e.CacheWriteTokens, &cost, &e.Estimated); err != nil {
			return nil, s.wrap(err)
		}
		e.At = time.UnixMilli(ms)
		if cost.Valid {
			e.CostUSD = &cost.Float64
		}
		out = append(out, e)
	}
	return out, s.wrap(rows.Err())
}

// CostSince sums the known cost of the calls from since on.
func (s *Store) CostSince(ctx context.Context, since time.Time) (float64, error) {
	var sum float64
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(SUM(cost_usd), 0) FROM usage_events WHERE at_ms >= ?`, since.UnixMilli()).Scan(&sum)
	return sum, s.wrap(err)
}
