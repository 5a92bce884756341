package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/store"
)

func testBinding(t *testing.T, ppid int) *Binding {
	dir := t.TempDir()
	b := NewBinding(func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return dir
		}
		return ""
	}, ppid)
	b.parentStart = func(int) string { return "100" }
	return b
}

func TestBindingRoundTripAndBadFiles(t *testing.T) {
	b := testBinding(t, 4242)
	if id, n := b.Get(); id != 0 || n != "" {
		t.Fatalf("empty: %d %q", id, n)
	}
	if err := b.Set(7); err != nil {
		t.Fatal(err)
	}
	if id, n := b.Get(); id != 7 || n != "" {
		t.Fatalf("get: %d %q", id, n)
	}
	fi, err := os.Stat(filepath.Dir(b.Path()))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode: %v %v", fi.Mode(), err)
	}
	for _, tc := range []struct {
		content string
		id      int64
		notice  string
	}{
		{"garbage\x00", 0, "corrupt"},
		{"", 0, "corrupt"},
		{"-3", 0, "corrupt"},
		{"12\n", 12, ""}, // the original's bare id
		{`{"session_id":5,"parent_start":"100"}`, 5, ""},
		{`{"session_id":5,"parent_start":"99"}`, 0, "stale"},
	} {
		os.WriteFile(b.Path(), []byte(tc.content), 0o600)
		id, n := b.Get()
		if id != tc.id || !strings.Contains(n, tc.notice) || (tc.notice == "") != (n == "") {
			t.Errorf("%q: got %d %q", tc.content, id, n)
		}
		if tc.notice != "" {
			if _, err := os.Stat(b.Path()); !os.IsNotExist(err) {
				t.Errorf("%q: bad binding not removed", tc.content)
			}
		}
	}
	b.Set(3)
	if err := b.Clear(); err != nil {
		t.Fatal(err)
	}
	if err := b.Clear(); err != nil {
		t.Fatalf("clearing twice: %v", err)
	}
}

func TestBindingsArePerShell(t *testing.T) {
	a := testBinding(t, 1)
	b := &Binding{dir: a.dir, ppid: 2, parentStart: a.parentStart}
	a.Set(10)
	b.Set(20)
	if id, _ := a.Get(); id != 10 {
		t.Errorf("shell 1: %d", id)
	}
	if id, _ := b.Get(); id != 20 {
		t.Errorf("shell 2: %d", id)
	}
}

func openStore(t *testing.T) *store.Store {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestResolveSelectors(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	for _, n := range []string{"paris-trip", "paris-food", "go-generics", "42"} {
		if err := st.CreateSession(ctx, &store.Session{Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		sel     string
		wantID  int64
		wantErr string
	}{
		{"1", 1, ""},
		{"S3", 3, ""},
		{"s2", 2, ""},
		{"paris-food", 2, ""},
		{"GENERICS", 3, ""},
		{"trip", 1, ""},
		{"42", 0, "no session"}, // digits are an id only
		{"paris", 0, "ambiguous"},
		{"nope", 0, "no session"},
		{"  ", 0, "empty"},
		{"S0", 0, "valid id"},
	} {
		s, err := Resolve(ctx, st, tc.sel)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: err %v, want %q", tc.sel, err, tc.wantErr)
			}
			continue
		}
		if err != nil || s.ID != tc.wantID {
			t.Errorf("%q: got %v %v, want %d", tc.sel, s, err, tc.wantID)
		}
	}
	_, err := Resolve(ctx, st, "paris")
	var se *SelectorError
	if !errors.As(err, &se) || len(se.Matches) != 2 || !strings.Contains(err.Error(), "1 (paris-trip)") {
		t.Errorf("ambiguous error should list matches: %v", err)
	}
}

func TestAutoName(t *testing.T) {
	for q, want := range map[string]string{
		"What is the best way to plan a Paris weekend trip?": "best-way-plan",
		"how do I use Go generics":                           "use-go-generics",
		"???":                                                "session",
		"42?":                                                "session-42",
		"s3":                                                 "session-s3",
		"Ünïcode façade names":                               "ünïcode-façade-names",
	} {
		if got := AutoName(q); got != want {
			t.Errorf("%q: %q, want %q", q, got, want)
		}
	}
	ctx := context.Background()
	st := openStore(t)
	st.CreateSession(ctx, &store.Session{Name: "x"})
	st.CreateSession(ctx, &store.Session{Name: "x_2"})
	if s := (&store.Session{Name: "x"}); CreateUnique(ctx, st, s) != nil || s.Name != "x_3" {
		t.Errorf("unique: %q", s.Name)
	}
}

// Session names are unique; a taken name gets _2, _3… (§1.7), on create
// and on rename.
func TestCreateRenameUnique(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	var got []string
	for range 3 {
		s := &store.Session{Name: "trip"}
		if err := CreateUnique(ctx, st, s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s.Name)
	}
	if strings.Join(got, " ") != "trip trip_2 trip_3" {
		t.Errorf("created %v", got)
	}
	s := &store.Session{}
	if err := CreateUnique(ctx, st, s); err != nil || s.Name != "" {
		t.Errorf("unnamed: %q %v", s.Name, err)
	}
	name, err := RenameUnique(ctx, st, s.ID, "trip")
	if err != nil || name != "trip_4" {
		t.Errorf("rename: %q %v", name, err)
	}
	if _, err := RenameUnique(ctx, st, 99, "fresh"); err == nil {
		t.Error("renaming a missing session should fail")
	}
}

func TestHistorySelectors(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	for i := 0; i < 5; i++ {
		st.SaveTurn(ctx, &store.Turn{Query: "q", Answer: "a"})
	}
	for sel, want := range map[string]string{"~1": "[5]", "2,~2": "[2 4]", "1-3": "[1 2 3]", "3": "[3]", "~1-~2": "[4 5]"} {
		ids, err := ResolveTurnIDs(ctx, st, sel)
		if err != nil || fmtIDs(ids) != want {
			t.Errorf("%s: %v %v want %s", sel, ids, err, want)
		}
	}
	for _, bad := range []string{"tell me more", "~0", "S3", ""} {
		if _, err := ResolveTurnIDs(ctx, st, bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := ResolveTurnIDs(ctx, st, "~9"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("~9: %v", err)
	}
	for i := 0; i < 60; i++ {
		st.SaveTurn(ctx, &store.Turn{Query: "q", Answer: "a"})
	}
	var hse *HistorySelectorError
	if _, err := ResolveTurnIDs(ctx, st, "1-60"); !errors.As(err, &hse) || hse.TooMany != 60 {
		t.Errorf("too many: %v", err)
	}
}

func fmtIDs(ids []int64) string { return fmt.Sprint(ids) }

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

// fakeClient is an llm.Client that answers every call with reply and
// records the requests.
type fakeClient struct {
	reply string
	err   error
	reqs  []llm.Request
}

func (f *fakeClient) Chat(ctx context.Context, req llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
	f.reqs = append(f.reqs, req)
	if f.err != nil {
		return nil, f.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: f.reply}}, nil
}

func TestCompaction(t *testing.T) {
	ctx := context.Background()
	for _, strategy := range []string{StrategyConcat, StrategyLLM} {
		t.Run(strategy, func(t *testing.T) {
			st := openStore(t)
			sess := &store.Session{Name: "long"}
			st.CreateSession(ctx, sess)
			for i := 0; i < 6; i++ {
				st.SaveTurn(ctx, &store.Turn{SessionID: sess.ID, Query: "question " + itoa(int64(i)), Answer: strings.Repeat("answer text ", 40)})
			}
			fc := &fakeClient{reply: "They discussed six questions."}
			c := &Compactor{Store: st, ThresholdPct: 80, Strategy: strategy, Summarize: LLMSummarizer(fc, "m")}
			// Under the threshold: nothing happens.
			if n, err := c.Maybe(ctx, sess, 100000, "next"); err != nil || n != "" {
				t.Fatalf("under threshold: %q %v", n, err)
			}
			n, err := c.Maybe(ctx, sess, 500, "next")
			if err != nil || !strings.Contains(n, "4 earlier turns") {
				t.Fatalf("compact: %q %v", n, err)
			}
			got, _ := st.GetSession(ctx, sess.ID)
			if got.CompactedThrough != 4 || got.CompactedSummary == "" {
				t.Fatalf("stored: %+v", got)
			}
			if strategy == StrategyLLM {
				if got.CompactedSummary != fc.reply || len(fc.reqs) != 1 || !strings.Contains(fc.reqs[0].Messages[1].Content, "question 0") {
					t.Errorf("llm summary: %q %d", got.CompactedSummary, len(fc.reqs))
				}
			} else if !strings.Contains(got.CompactedSummary, "User: question 3") {
				t.Errorf("concat summary: %q", got.CompactedSummary)
			}
			msgs, err := SessionMessages(ctx, st, got)
			if err != nil {
				t.Fatal(err)
			}
			// summary pair + 2 kept turns.
			if len(msgs) != 6 || !strings.HasPrefix(msgs[0].Content, summaryIntro) || msgs[2].Content != "question 4" {
				t.Errorf("messages after compaction: %d %+v", len(msgs), msgs)
			}
			// Originals stay in history.
			if all, _ := st.SessionTurns(ctx, sess.ID, 0); len(all) != 6 {
				t.Errorf("turns deleted: %d", len(all))
			}
		})
	}
}

func TestCompactionInterruptedLeavesSessionUnchanged(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	st := openStore(t)
	sess := &store.Session{Name: "s"}
	st.CreateSession(ctx, sess)
	for i := 0; i < 4; i++ {
		st.SaveTurn(ctx, &store.Turn{SessionID: sess.ID, Query: "q", Answer: strings.Repeat("x", 400)})
	}
	cancel()
	c := &Compactor{Store: st, Strategy: StrategyLLM, Summarize: LLMSummarizer(&fakeClient{reply: "s"}, "m")}
	if _, err := c.Maybe(ctx, sess, 100, ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	got, _ := st.GetSession(context.Background(), sess.ID)
	if got.CompactedThrough != 0 || got.CompactedSummary != "" {
		t.Errorf("changed: %+v", got)
	}
}

func TestContinuationSummaries(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	long := strings.Repeat("long answer ", 300)
	st.SaveTurn(ctx, &store.Turn{Query: "short q", Answer: long})
	st.SaveTurn(ctx, &store.Turn{Query: "q2", Answer: "a2"})
	fc := &fakeClient{reply: "the gist"}
	msgs, err := ContinuationMessages(ctx, st, []int64{1, 2}, true, LLMSummarizer(fc, "m"), SummaryLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 4 || msgs[1].Content != "the gist" || msgs[3].Content != "a2" {
		t.Fatalf("msgs %+v", msgs)
	}
	// Cached: a second load makes no model call.
	if _, err := ContinuationMessages(ctx, st, []int64{1}, true, LLMSummarizer(fc, "m"), SummaryLimits{}); err != nil || len(fc.reqs) != 1 {
		t.Errorf("summary not cached: %d calls %v", len(fc.reqs), err)
	}
	full, _ := ContinuationMessages(ctx, st, []int64{1}, false, nil, SummaryLimits{})
	if full[1].Content != long {
		t.Errorf("without -s the full answer is used")
	}
}

// The configured threshold and caps are used: a 300-character turn is
// summarized past a 100-character threshold, each part to its own cap.
func TestContinuationSummaryLimits(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	st.SaveTurn(ctx, &store.Turn{Query: strings.Repeat("q", 300), Answer: strings.Repeat("a", 300)})
	st.SaveTurn(ctx, &store.Turn{Query: "short", Answer: strings.Repeat("b", 90)})
	var caps []int
	sum := func(_ context.Context, text string, maxChars int) (string, error) {
		caps = append(caps, maxChars)
		return text[:1], nil
	}
	msgs, err := ContinuationMessages(ctx, st, []int64{1, 2}, true, sum, SummaryLimits{Threshold: 100, QueryMax: 40, AnswerMax: 70})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(caps) != "[40 70]" || msgs[0].Content != "q" || msgs[1].Content != "a" || msgs[3].Content != strings.Repeat("b", 90) {
		t.Fatalf("caps %v msgs %+v", caps, msgs)
	}
}

func TestCompactionRaceKeepsTheFirstSummary(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	sess := &store.Session{Name: "shared"}
	st.CreateSession(ctx, sess)
	for i := 0; i < 5; i++ {
		st.SaveTurn(ctx, &store.Turn{SessionID: sess.ID, Query: "q", Answer: strings.Repeat("x", 400)})
	}
	// Two shells loaded the session before either compacted.
	a, _ := st.GetSession(ctx, sess.ID)
	b, _ := st.GetSession(ctx, sess.ID)
	c := &Compactor{Store: st}
	if n, err := c.Maybe(ctx, a, 300, ""); err != nil || n == "" {
		t.Fatal(n, err)
	}
	n, err := c.Maybe(ctx, b, 300, "")
	if err != nil || !strings.Contains(n, "another shell") || b.CompactedThrough != a.CompactedThrough {
		t.Fatalf("second: %q %v %+v", n, err, b)
	}
}

func TestTurnsInWords(t *testing.T) {
	for n, want := range map[int]string{0: "0 turns", 1: "1 turn", 2: "2 turns"} {
		if got := Turns(n); got != want {
			t.Errorf("Turns(%d) = %q, want %q", n, got, want)
		}
	}
}
