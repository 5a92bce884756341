package memory

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/store"
)

func openStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newSession(t testing.TB, st *store.Store, name string) int64 {
	t.Helper()
	res, err := st.DB().Exec(`INSERT INTO sessions(name, created_at, last_used_at) VALUES(?, 'x', 'x')`, name)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.LastInsertId()
	return id
}

var defaults = config.Memory{Enabled: true, RecallTopK: 5, RecallMinSimilarity: 0.35, DedupThreshold: 0.90}

func mustSave(t *testing.T, svc *Service, text string, session int64) SaveResult {
	t.Helper()
	r, err := svc.Save(context.Background(), text, nil, session)
	if err != nil {
		t.Fatalf("Save(%q): %v", text, err)
	}
	return r
}

func texts(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Memory.Text)
	}
	return out
}

func TestSaveDeduplicates(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	svc := New(st, defaults, nil)

	first, err := svc.Save(ctx, "  I live in\tLisbon ", []string{"Home", "home", " "}, 0)
	if err != nil || first.Updated {
		t.Fatalf("first save = %+v, %v", first, err)
	}
	for _, restated := range []string{"i live in lisbon.", "The user lives in Lisbon", "I LIVE IN LISBON!!"} {
		r, err := svc.Save(ctx, restated, []string{"city"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Updated || r.ID != first.ID || r.Similarity < 0.9 {
			t.Errorf("Save(%q) = %+v, want an update of %d", restated, r, first.ID)
		}
	}
	m, _ := st.GetMemory(ctx, first.ID)
	if m.Text != "I LIVE IN LISBON!!" {
		t.Errorf("update kept the old wording %q", m.Text)
	}
	if !slices.Equal(m.Tags, []string{"home", "city"}) {
		t.Errorf("tags = %v, want merged [home city]", m.Tags)
	}

	// Related but different facts are separate memories.
	for _, different := range []string{"I lived in Porto before Lisbon", "I work in Lisbon as a nurse", "My sister lives in Berlin"} {
		if r := mustSave(t, svc, different, 0); r.Updated {
			t.Errorf("Save(%q) deduplicated into %d", different, r.ID)
		}
	}
	if n, _ := st.CountMemories(ctx, store.MemoryScope{}); n != 4 {
		t.Errorf("%d memories, want 4", n)
	}

	r, err := svc.Save(ctx, "I use\x1b[31m red\x07 ink\r\nand pens", []string{"\x1b]0;x\x07Tools"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := st.GetMemory(ctx, r.ID); m.Text != "I use[31m red ink and pens" || m.Tags[0] != "]0;xtools" {
		t.Errorf("control characters kept: %q %q", m.Text, m.Tags)
	}
	if _, err := svc.Save(ctx, " \n\x00 ", nil, 0); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty text: %v", err)
	}
	if _, err := svc.Save(ctx, strings.Repeat("é", MaxTextLen+1), nil, 0); !errors.Is(err, ErrTooLong) {
		t.Errorf("long text: %v", err)
	}
}

func TestSaveDedupRespectsScope(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	svc := New(st, defaults, nil)
	a, b := newSession(t, st, "a"), newSession(t, st, "b")

	inA := mustSave(t, svc, "I am allergic to peanuts", a)
	// The same fact in another session or globally is not a duplicate of
	// a memory that scope cannot see.
	if r := mustSave(t, svc, "I am allergic to peanuts", b); r.Updated {
		t.Errorf("session b deduplicated into session a's memory")
	}
	g := mustSave(t, svc, "I am allergic to peanuts", 0)
	if g.Updated {
		t.Errorf("global save deduplicated into a session memory")
	}
	// A session save that restates a global fact refreshes the global.
	if r := mustSave(t, svc, "i'm allergic to peanuts", newSession(t, st, "c")); !r.Updated || r.ID != g.ID {
		t.Errorf("session save of a global fact = %+v, want update of %d", r, g.ID)
	}
	m, _ := st.GetMemory(ctx, g.ID)
	if m.SessionID != 0 {
		t.Errorf("updated global moved to session %d", m.SessionID)
	}
	// Within session a, a restatement updates a's memory.
	if r := mustSave(t, svc, "Allergic to peanuts, I am", a); !r.Updated || (r.ID != inA.ID && r.ID != g.ID) {
		t.Errorf("restatement in a = %+v", r)
	}
}

func TestRecallRanksAndThresholds(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	svc := New(st, defaults, nil)
	for _, f := range []string{
		"I live in Lisbon, Portugal",
		"I prefer answers with code examples in Go",
		"My dog is called Pixel",
		"I am vegetarian and cook at home most days",
		"My favourite editor is Neovim",
	} {
		mustSave(t, svc, f, 0)
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"Where do I live?", []string{"I live in Lisbon, Portugal"}},
		{"best weekend trips from Lisbon", []string{"I live in Lisbon, Portugal"}},
		{"what's my dog called", []string{"My dog is called Pixel"}},
		{"give me code examples for generics in Go", []string{"I prefer answers with code examples in Go"}},
		{"suggest vegetarian dinner recipes to cook", []string{"I am vegetarian and cook at home most days"}},
		// Unrelated or stopword-only questions recall nothing.
		{"how does TCP slow start work", nil},
		{"what is this?", nil},
		{"", nil},
	} {
		got, err := svc.Recall(ctx, tc.query, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(texts(got), tc.want) {
			t.Errorf("Recall(%q) = %q, want %q", tc.query, texts(got), tc.want)
		}
		for _, m := range got {
			if m.Score < defaults.RecallMinSimilarity || m.Score > 1 {
				t.Errorf("Recall(%q) score %v outside [min, 1]", tc.query, m.Score)
			}
		}
	}

	// A query touching several memories returns them best first, capped at
	// top-k.
	cfg := defaults
	cfg.RecallTopK, cfg.RecallMinSimilarity = 2, 0.1
	got, err := New(st, cfg, nil).Recall(ctx, "my dog Pixel lives in Lisbon with my Neovim editor", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Score < got[1].Score {
		t.Fatalf("top-2 = %q (scores %v)", texts(got), got)
	}
	// Raising the threshold drops weak matches.
	cfg.RecallMinSimilarity = 0.99
	if got, _ := New(st, cfg, nil).Recall(ctx, "Lisbon", 0); len(got) != 0 {
		t.Errorf("min similarity 0.99 still recalled %q", texts(got))
	}
}

func TestRecallScopesSessions(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	svc := New(st, defaults, nil)
	trip, work := newSession(t, st, "trip"), newSession(t, st, "work")
	mustSave(t, svc, "I travel with a folding bike", 0)
	mustSave(t, svc, "On this trip I travel by train only", trip)
	mustSave(t, svc, "At work I travel to Madrid monthly", work)

	cases := map[int64][]string{
		0:    {"I travel with a folding bike"},
		trip: {"I travel with a folding bike", "On this trip I travel by train only"},
		work: {"I travel with a folding bike", "At work I travel to Madrid monthly"},
	}
	for sid, want := range cases {
		got, err := svc.Recall(ctx, "how should I travel", sid)
		if err != nil {
			t.Fatal(err)
		}
		g := texts(got)
		slices.Sort(g)
		slices.Sort(want)
		if !slices.Equal(g, want) {
			t.Errorf("session %d recalled %q, want %q", sid, g, want)
		}
	}
}

func TestSearchListsAllScored(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	svc := New(st, defaults, nil)
	mustSave(t, svc, "I live in Lisbon", 0)
	mustSave(t, svc, "Lisbon trams are my favourite thing about home", 0)
	mustSave(t, svc, "I drink tea", newSession(t, st, "s"))
	got, err := svc.Search(ctx, "I live in Lisbon", store.MemoryScope{All: true}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"I live in Lisbon", "Lisbon trams are my favourite thing about home"}; !slices.Equal(texts(got), want) {
		t.Fatalf("Search = %q, want %q", texts(got), want)
	}
	if got[0].Score != 1 || got[1].Score >= got[0].Score || got[1].Score <= 0 {
		t.Errorf("scores = %v, %v", got[0].Score, got[1].Score)
	}
}

// vocabEmbedder is a deterministic test embedder: one dimension per word of
// a fixed vocabulary, plus synonyms mapped onto the same dimension, so
// dense similarity differs from lexical similarity in a known way.
type vocabEmbedder struct {
	fp    string
	calls int
	texts int
}

var vocab = map[string]int{"car": 0, "automobile": 0, "vehicle": 0, "red": 1, "crimson": 1, "own": 2, "drive": 2, "tea": 3}

func (e *vocabEmbedder) Fingerprint() string { return e.fp }
func (e *vocabEmbedder) Embed(_ context.Context, in []string) ([][]float32, error) {
	e.calls++
	e.texts += len(in)
	out := make([][]float32, len(in))
	for i, s := range in {
		v := make([]float32, 4)
		for _, w := range strings.Fields(strings.ToLower(s)) {
			if d, ok := vocab[strings.Trim(w, ".,?!")]; ok {
				v[d]++
			}
		}
		out[i] = v
	}
	return out, nil
}

func TestEmbedderPath(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	// Saved before an embedder existed: no vectors.
	mustSave(t, New(st, defaults, nil), "I own a red car", 0)
	mustSave(t, New(st, defaults, nil), "I drink tea", 0)

	emb := &vocabEmbedder{fp: "vocab/v1"}
	svc := New(st, defaults, emb)
	got, err := svc.Recall(ctx, "which crimson automobile do I drive", 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"I own a red car"}; !slices.Equal(texts(got), want) {
		t.Fatalf("dense recall = %q, want %q", texts(got), want)
	}
	// Stale rows were embedded once and stored with the fingerprint.
	ms, _ := st.ListMemories(ctx, store.MemoryScope{})
	for _, m := range ms {
		if m.EmbeddingModel != "vocab/v1" || len(m.Embedding) != 4 {
			t.Errorf("memory %d not re-embedded: %q %v", m.ID, m.EmbeddingModel, m.Embedding)
		}
	}
	before := emb.texts
	if _, err := svc.Recall(ctx, "tea", 0); err != nil {
		t.Fatal(err)
	}
	if emb.texts-before != 1 {
		t.Errorf("second recall embedded %d texts, want only the query", emb.texts-before)
	}
	// A synonym restatement deduplicates through the dense score.
	r := mustSave(t, svc, "I drive a crimson automobile", 0)
	if !r.Updated {
		t.Errorf("dense dedup missed: %+v", r)
	}
	// A new fingerprint re-embeds instead of mixing spaces.
	emb2 := &vocabEmbedder{fp: "vocab/v2"}
	if _, err := New(st, defaults, emb2).Recall(ctx, "tea", 0); err != nil {
		t.Fatal(err)
	}
	if emb2.texts != 3 {
		t.Errorf("fingerprint change embedded %d texts, want query + 2 memories", emb2.texts)
	}
	// With no memories, the embedder is not called at all.
	empty := &vocabEmbedder{fp: "vocab/v1"}
	if _, err := New(openStore(t), defaults, empty).Recall(ctx, "tea", 0); err != nil || empty.calls != 0 {
		t.Errorf("empty store: %d embed calls, %v", empty.calls, err)
	}
}

func TestPrepareTurn(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	cfg := defaults
	cfg.GlobalTriggers = []string{"remember globally:", "global memory:"}
	svc := New(st, cfg, nil)

	tm, err := svc.PrepareTurn(ctx, "Global Memory: I am a nurse. What shoes suit long shifts?", 0)
	if err != nil {
		t.Fatal(err)
	}
	if tm.Query != "I am a nurse. What shoes suit long shifts?" || tm.Saved == nil || tm.SavedText != "I am a nurse." {
		t.Fatalf("trigger turn = %+v", tm)
	}
	if tm.SavedNotice() != "remembered globally (memory 1): I am a nurse." || len(tm.Notices) != 0 {
		t.Errorf("notices = %q %q", tm.SavedNotice(), tm.Notices)
	}
	if !strings.Contains(tm.Section, "> I am a nurse.") || !strings.HasPrefix(tm.Describe(), `recalled 1 memory: #1 "I am a nurse."`) {
		t.Errorf("section %q / describe %q", tm.Section, tm.Describe())
	}

	// A save that fails is a notice, and the question still goes ahead.
	tm, err = svc.PrepareTurn(ctx, "remember globally: "+strings.Repeat("long words ", 200), 0)
	if err != nil || tm.Saved != nil || len(tm.Notices) != 1 || !strings.Contains(tm.Notices[0], "could not remember that") {
		t.Errorf("failed save = %+v, %v", tm, err)
	}
	if tm, _ := svc.PrepareTurn(ctx, "remember globally:   ", 0); tm.Saved != nil || !strings.Contains(strings.Join(tm.Notices, ""), "nothing to remember") {
		t.Errorf("empty trigger = %+v", tm)
	}

	// Disabled: the trigger is stripped, nothing is saved or recalled.
	cfg.Enabled = false
	tm, err = New(st, cfg, nil).PrepareTurn(ctx, "remember globally: I am a nurse. Shoes?", 0)
	if err != nil || tm.Query != "I am a nurse. Shoes?" || tm.Saved != nil || tm.Section != "" || len(tm.Notices) != 1 {
		t.Errorf("disabled = %+v, %v", tm, err)
	}

	// A cancelled context is the only error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := svc.PrepareTurn(cctx, "shoes for nurses", 0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
