package history

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/tui"
)

func openStore(tb testing.TB) *store.Store {
	tb.Helper()
	st, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "asky.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

func testSource(tb testing.TB, st *store.Store) *storeSource {
	dir := tb.TempDir()
	getenv := func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return dir
		}
		return ""
	}
	return &storeSource{st: st, getenv: getenv, binding: session.NewBinding(getenv, 4242), style: func() string { return render.NoColor }}
}

func TestStoreSourceResumeDeleteDocument(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	s := &store.Session{Name: "trip"}
	st.CreateSession(ctx, s)
	st.SaveTurn(ctx, &store.Turn{SessionID: s.ID, Query: "where", Answer: "Lisbon\n\n```sh\necho hi\n```"})
	st.SaveTurn(ctx, &store.Turn{Query: "what is tcp", Answer: "A protocol.", Status: store.StatusInterrupted})
	src := testSource(t, st)
	items, done, err := src.Next(ctx, 10)
	if err != nil || !done || len(items) != 2 {
		t.Fatalf("next: %v %v %v", items, done, err)
	}
	one := items[0]
	if one.IsSession() {
		one = items[1]
	}
	if !one.Incomplete() || one.Status != store.StatusInterrupted {
		t.Errorf("interrupted turn not marked: %+v", one)
	}
	doc, _ := src.Document(ctx, one)
	if !strings.Contains(doc, "# what is tcp") || !strings.Contains(doc, "A protocol.") || !strings.Contains(doc, "· interrupted_") {
		t.Errorf("doc %q", doc)
	}
	ans, _ := src.Answer(ctx, tui.Item{SessionID: s.ID})
	if tui.LastCodeBlock(ans) != "echo hi" {
		t.Errorf("session answer %q", ans)
	}
	// Resuming a one-shot turn converts it to a session and binds it.
	msg, err := src.Resume(ctx, one)
	if err != nil || !strings.Contains(msg, "Converted history 2 to session 2 (tcp)") {
		t.Fatalf("resume: %q %v", msg, err)
	}
	if id, _ := src.binding.Get(); id != 2 {
		t.Fatalf("binding %d", id)
	}
	// Deleting the bound session clears the binding.
	if err := src.Delete(ctx, tui.Item{SessionID: 2}); err != nil {
		t.Fatal(err)
	}
	if id, _ := src.binding.Get(); id != 0 {
		t.Fatalf("binding kept after delete: %d", id)
	}
	hits, _ := src.Search(ctx, "lisbon", 10)
	if len(hits) != 1 || hits[0].Title != "[trip] where" {
		t.Fatalf("search %+v", hits)
	}
}

// BenchmarkBrowseFirstFrame100k measures opening the browser on 100k turns:
// the first page query, the model update and the first full View.
func BenchmarkBrowseFirstFrame100k(b *testing.B) {
	st := openStore(b)
	if _, err := st.DB().Exec(`
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 20)
		INSERT INTO sessions(name, created_at, last_used_at) SELECT 'session-' || i, '2026-01-01T00:00:00Z', '2026-02-01T00:00:00Z' FROM n;
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 100000)
		INSERT INTO turns(session_id, created_at, query, answer)
		SELECT CASE WHEN i % 50 = 0 THEN 1 + (i / 50) % 20 ELSE NULL END,
			strftime('%Y-%m-%dT%H:%M:%SZ', '2026-01-01', '+' || (i * 60) || ' seconds'),
			'question ' || i, 'Answer ' || i FROM n;`); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var worst time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		m := tui.New(ctx, testSource(b, st))
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		msg := m.Init()()
		m.Update(msg)
		if v := m.View(); !strings.Contains(v, "100+ entries") {
			b.Fatalf("view:\n%s", v)
		}
		worst = max(worst, time.Since(t0))
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/first-frame")
	b.ReportMetric(float64(worst.Microseconds())/1000, "ms/worst")
}

func TestBrowseNeedsATerminal(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	opts := &BrowseOptions{IO: ios, Store: func() (*store.Store, error) { t.Fatal("opened the store"); return nil, nil }}
	err := browseRun(context.Background(), opts)
	var ce *cmdutil.Error
	if !errors.As(err, &ce) || ce.Code != cmdutil.ExitUsage || !strings.Contains(ce.Hint, "history search") {
		t.Fatalf("err %v", err)
	}
}
