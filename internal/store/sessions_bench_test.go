package store

import (
	"context"
	"testing"
)

// seed100k fills a database with 100k turns (every 50th in one of 20
// sessions) using one SQL statement, so benchmarks measure queries, not
// seeding.
func seed100k(b *testing.B) *Store {
	b.Helper()
	st := openTest(b)
	_, err := st.DB().Exec(`
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 20)
		INSERT INTO sessions(name, created_at, last_used_at) SELECT 'session-' || i, '2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z' FROM n;
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 100000)
		INSERT INTO turns(session_id, created_at, model, query, answer)
		SELECT CASE WHEN i % 50 = 0 THEN 1 + (i / 50) % 20 ELSE NULL END,
			strftime('%Y-%m-%dT%H:%M:%SZ', '2026-01-01', '+' || (i * 60) || ' seconds'), 'm',
			'question ' || i || ' about ' || CASE i % 4 WHEN 0 THEN 'sourdough bread' WHEN 1 THEN 'tcp networking' WHEN 2 THEN 'go generics' ELSE 'lisbon travel' END,
			'Answer ' || i || ' with some markdown text, a list and a code block that mentions bread now and then.'
		FROM n;`)
	if err != nil {
		b.Fatal(err)
	}
	return st
}

func BenchmarkSearchTurns100k(b *testing.B) {
	st := seed100k(b)
	ctx := context.Background()
	for _, q := range []struct{ name, text string }{
		// "bread" is in every answer and "sourdough" in a quarter of the
		// questions: the worst case, ranked over the newest matches only.
		{"common", "sourdough bread"},
		{"rare", "question 4242"},
	} {
		b.Run(q.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				hits, err := st.SearchTurns(ctx, q.text, 20)
				if err != nil || len(hits) == 0 {
					b.Fatal(len(hits), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/search")
		})
	}
}

func BenchmarkListTurns100k(b *testing.B) {
	st := seed100k(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := st.ListTurns(ctx, 10); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/list")
}

func BenchmarkBrowseFirstPage100k(b *testing.B) {
	st := seed100k(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		page, err := st.BrowsePage(ctx, &BrowseCursor{}, 100)
		if err != nil || len(page) != 100 {
			b.Fatal(len(page), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/page")
}
