package store

import (
	"context"
	"strings"
)

// CorpusTermDocs returns how many chunks contain each term (terms absent
// from the index are missing from the map) and the total chunk count.
//
// Counting reads a term's whole doclist, so the counts are cached in
// corpus_term_docs, stamped with the corpus generation: a query reads the
// cached counts of the current generation and counts only the other
// terms, then stores those for the next query.
func (s *Store) CorpusTermDocs(ctx context.Context, terms []string) (map[string]int, int, error) {
	out := map[string]int{}
	var gen int64
	total := -1
	rows, err := s.db.QueryContext(ctx, `SELECT key, value FROM corpus_state WHERE key IN ('generation', 'chunks')`)
	if err != nil {
		return nil, 0, err
	}
	for rows.Next() {
		var k string
		var v int64
		if err := rows.Scan(&k, &v); err != nil {
			rows.Close()
			return nil, 0, err
		}
		if k == "chunks" {
			total = int(v)
		} else {
			gen = v
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if total < 0 {
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM corpus_chunks`).Scan(&total); err != nil {
			return nil, 0, err
		}
	}
	if len(terms) == 0 {
		return out, total, nil
	}
	known := make(map[string]bool, len(terms))
	err = s.eachTermRow(ctx, `SELECT term, doc FROM corpus_term_docs WHERE generation = ? AND term IN (`+placeholders(len(terms))+`)`,
		append([]any{gen}, termArgs(terms)...), func(t string, n int) {
			known[t] = true
			if n > 0 {
				out[t] = n
			}
		})
	if err != nil {
		return nil, 0, err
	}
	var missing []string
	for _, t := range terms {
		if !known[t] {
			known[t] = true // once, however often the term is listed
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return out, total, nil
	}
	err = s.eachTermRow(ctx, `SELECT term, doc FROM corpus_chunks_vocab WHERE term IN (`+placeholders(len(missing))+`)`,
		termArgs(missing), func(t string, n int) { out[t] = n })
	if err != nil {
		return nil, 0, err
	}
	s.cacheTermDocs(ctx, gen, missing, out)
	return out, total, nil
}

func termArgs(terms []string) []any {
	args := make([]any, len(terms))
	for i, t := range terms {
		args[i] = t
	}
	return args
}

func (s *Store) eachTermRow(ctx context.Context, q string, args []any, fn func(string, int)) error {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return err
		}
		fn(t, n)
	}
	return rows.Err()
}

// cacheTermDocs stores the counts of terms (0 for those not in df) for
// generation gen, unless the corpus changed meanwhile. It is a cache
// written from a read command: it never waits for the write lock (an
// ingest holding it is about to change the generation anyway) and its
// failures are ignored.
func (s *Store) cacheTermDocs(ctx context.Context, gen int64, terms []string, df map[string]int) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err != nil {
		return
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA busy_timeout = `+busyTimeoutMS)
	var sb strings.Builder
	sb.WriteString(`INSERT OR REPLACE INTO corpus_term_docs (term, generation, doc) SELECT column1, ?, column2 FROM (VALUES `)
	args := []any{gen}
	for i, t := range terms {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString("(?, ?)")
		args = append(args, t, df[t])
	}
	// The generation check and the write are one statement: a count taken
	// before an ingest is never stamped with the ingest's generation.
	sb.WriteString(`) WHERE (SELECT value FROM corpus_state WHERE key = 'generation') = ?`)
	args = append(args, gen)
	_, _ = conn.ExecContext(ctx, sb.String(), args...)
}
