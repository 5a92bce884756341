package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
)

// SearchHit is one turn matching a full-text search.
type SearchHit struct {
	Turn *Turn
	// Snippet is a short excerpt around the match with the matched terms
	// between « and ».
	Snippet string
	// Score is the BM25 rank (lower is better, as SQLite reports it).
	Score float64
}

// FTSQuery turns free text into a safe FTS5 query: every word becomes a
// quoted term (so punctuation and FTS operators typed by a user are plain
// text) and all must match. Stemming covers word forms; prefix matching is
// left out because expanding a common prefix on a large history cost 4× the
// whole search.
func FTSQuery(text string) string {
	words := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '_'
	})
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(`"` + w + `"`)
	}
	return b.String()
}

// rankWindow is how many of the most recent matches a search ranks.
const rankWindow = 250

// SearchTurns ranks turns by BM25 over question and answer; matches in the
// question weigh twice as much (the rank configured in migration 0005).
func (s *Store) SearchTurns(ctx context.Context, text string, limit int) ([]SearchHit, error) {
	q := FTSQuery(text)
	if q == "" {
		return nil, nil
	}
	// Ranking costs ~20µs per match, so on a large history only the
	// rankWindow most recent matches are ranked: the oldest of them is found
	// by walking the doclist newest-first (cheap), then BM25 runs above it.
	var floor int64
	err := s.db.QueryRowContext(ctx, `SELECT rowid FROM turns_fts WHERE turns_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?`, q, rankWindow-1).Scan(&floor)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("search: %w", err)
	}
	// Snippets are cut in Go from the top rows only: FTS5's snippet() in a
	// join re-reads the whole doclist of every term for each row.
	rows, err := s.db.QueryContext(ctx, `WITH top AS (
			SELECT rowid AS id, rank FROM turns_fts WHERE turns_fts MATCH ?1 AND rowid >= ?3 ORDER BY rank LIMIT ?2)
		SELECT t.id, COALESCE(t.session_id, 0), t.created_at, t.model, t.query, t.answer, t.status, COALESCE(s.name, ''), top.rank
		FROM top JOIN turns t ON t.id = top.id LEFT JOIN sessions s ON s.id = t.session_id
		ORDER BY top.rank, t.id DESC`, q, limit, floor)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var out []SearchHit
	for rows.Next() {
		var t Turn
		var h SearchHit
		var created string
		if err := rows.Scan(&t.ID, &t.SessionID, &created, &t.Model, &t.Query, &t.Answer, &t.Status, &t.SessionName, &h.Score); err != nil {
			return nil, err
		}
		h.Snippet = Snippet(t.Query+" — "+t.Answer, text, 16)
		t.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
		h.Turn = &t
		out = append(out, h)
	}
	return out, rows.Err()
}

// BrowseEntry is one row of the history browser: a session or a one-shot
// turn.
type BrowseEntry struct {
	// SessionID is set for sessions, TurnID for one-shot turns.
	SessionID int64
	TurnID    int64
	Title     string // session name or question
	When      time.Time
	Turns     int // turns in the session (1 for a one-shot turn)
	Model     string
	// Status is the turn's status, or a session's latest turn's
	// (StatusComplete, StatusInterrupted, StatusError).
	Status string
}

// BrowseCursor remembers where the previous page of each kind ended.
type BrowseCursor struct {
	sessTS, turnTS      string
	sessID, turnID      int64
	sessDone, turnsDone bool
	started             bool
}

// Done reports that every entry has been returned.
func (c *BrowseCursor) Done() bool { return c.started && c.sessDone && c.turnsDone }

// BrowsePage returns the next limit entries, newest activity first,
// merging sessions (by last use) and one-shot turns (by time). Each kind is
// read with a keyset query on its own index, so a page costs the same on
// 100 or 100k turns.
func (s *Store) BrowsePage(ctx context.Context, cur *BrowseCursor, limit int) ([]BrowseEntry, error) {
	const far = "9999"
	if !cur.started {
		cur.started = true
		cur.sessTS, cur.turnTS = far, far
		cur.sessID, cur.turnID = 1<<62, 1<<62
	}
	var sess, one []BrowseEntry
	var sessTS, oneTS []string
	if !cur.sessDone {
		rows, err := s.db.QueryContext(ctx, `SELECT s.id, COALESCE(s.name, ''), s.last_used_at, s.model,
			(SELECT count(*) FROM turns t WHERE t.session_id = s.id),
			COALESCE((SELECT t.query FROM turns t WHERE t.session_id = s.id ORDER BY t.id LIMIT 1), ''),
			COALESCE((SELECT t.status FROM turns t WHERE t.session_id = s.id ORDER BY t.id DESC LIMIT 1), '')
			FROM sessions s WHERE (s.last_used_at, s.id) < (?, ?) ORDER BY s.last_used_at DESC, s.id DESC LIMIT ?`, cur.sessTS, cur.sessID, limit)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var e BrowseEntry
			var ts, first string
			if err := rows.Scan(&e.SessionID, &e.Title, &ts, &e.Model, &e.Turns, &first, &e.Status); err != nil {
				rows.Close()
				return nil, err
			}
			if e.Title == "" {
				e.Title = first
			}
			e.When, _ = time.Parse(time.RFC3339Nano, ts)
			sess, sessTS = append(sess, e), append(sessTS, ts)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if len(sess) < limit {
			cur.sessDone = true
		}
	}
	if !cur.turnsDone {
		rows, err := s.db.QueryContext(ctx, `SELECT id, query, created_at, model, status FROM turns INDEXED BY turns_oneshot
			WHERE session_id IS NULL AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?`, cur.turnTS, cur.turnID, limit)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var e BrowseEntry
			var ts string
			if err := rows.Scan(&e.TurnID, &e.Title, &ts, &e.Model, &e.Status); err != nil {
				rows.Close()
				return nil, err
			}
			e.Turns = 1
			e.When, _ = time.Parse(time.RFC3339Nano, ts)
			one, oneTS = append(one, e), append(oneTS, ts)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if len(one) < limit {
			cur.turnsDone = true
		}
	}
	// Merge newest first; advance each cursor only past what is returned so
	// the next page resumes exactly there.
	var out []BrowseEntry
	i, j := 0, 0
	for len(out) < limit && (i < len(sess) || j < len(one)) {
		if j >= len(one) || (i < len(sess) && sessTS[i] >= oneTS[j]) {
			out = append(out, sess[i])
			cur.sessTS, cur.sessID = sessTS[i], sess[i].SessionID
			i++
			continue
		}
		out = append(out, one[j])
		cur.turnTS, cur.turnID = oneTS[j], one[j].TurnID
		j++
	}
	if i < len(sess) {
		cur.sessDone = false
	}
	if j < len(one) {
		cur.turnsDone = false
	}
	return out, nil
}

// Snippet returns about n words of text around the first word matching a
// word of query (case-insensitive, prefix), with matches between « and ».
func Snippet(text, query string, n int) string {
	terms := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '_'
	})
	words := strings.Fields(text)
	match := func(w string) bool {
		lw := strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }))
		for _, t := range terms {
			if len(t) > 0 && (strings.HasPrefix(lw, t) || (len(t) >= 4 && strings.HasPrefix(lw, t[:len(t)-1]))) {
				return true
			}
		}
		return false
	}
	first := -1
	for i, w := range words {
		if match(w) {
			first = i
			break
		}
	}
	start := 0
	if first > n/3 {
		start = first - n/3
	}
	end := min(len(words), start+n)
	out := make([]string, 0, end-start+2)
	if start > 0 {
		out = append(out, "…")
	}
	for _, w := range words[start:end] {
		if match(w) {
			w = "«" + w + "»"
		}
		out = append(out, w)
	}
	if end < len(words) {
		out = append(out, "…")
	}
	return strings.Join(out, " ")
}
