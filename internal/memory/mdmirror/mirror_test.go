package mdmirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/memory"
	"github.com/askygo/asky/internal/store"
)

func newStore(t *testing.T) (*store.Store, *memory.Service) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, memory.New(st, config.Memory{Enabled: true}, nil)
}

// facts is the comparable set of memories: scope, text, tags.
func facts(t *testing.T, st *store.Store) []string {
	t.Helper()
	ms, err := st.ListMemories(context.Background(), store.MemoryScope{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s|%s|%v", Scope(m.SessionID), m.Text, m.Tags))
	}
	slices.Sort(out)
	return out
}

func TestParseReportsMalformedLines(t *testing.T) {
	in := "# Memory\n\nprose\n- [global] a fact <!-- id:3 tags:x,y -->\n- no scope is global\n- [session:7] in a session\n" +
		"- [sesion:7] typo\n- [global]\n- [global] bad id <!-- id:x -->\n- [global] odd <!-- colour:red -->\n  - [global] indented [brackets] kept\n"
	es, errs := Parse(strings.NewReader(in), "M.md")
	want := []Entry{{Text: "a fact", ID: 3, Tags: []string{"x", "y"}, Line: 4}, {Text: "no scope is global", Line: 5},
		{SessionID: 7, Text: "in a session", Line: 6}, {Text: "indented [brackets] kept", Line: 11}}
	if fmt.Sprint(es) != fmt.Sprint(want) {
		t.Fatalf("entries\n%v\nwant\n%v", es, want)
	}
	var lines []string
	for _, e := range errs {
		lines = append(lines, fmt.Sprintf("%s:%d", e.File, e.Line))
	}
	if got := strings.Join(lines, " "); got != "M.md:7 M.md:8 M.md:9 M.md:10" {
		t.Fatalf("errors at %s: %v", got, errs)
	}
}

// Export → edit → import into an empty database gives the same set, and
// importing again changes nothing.
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	st, svc := newStore(t)
	sess := &store.Session{Name: "trip"}
	if err := st.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		text string
		tags []string
		sid  int64
	}{{"I live in Lisbon", []string{"home"}, 0}, {"The trip is in May", nil, sess.ID}, {"Line\nbreaks   become spaces", nil, 0}} {
		if _, err := svc.Save(ctx, f.text, f.tags, f.sid); err != nil {
			t.Fatal(err)
		}
	}
	ms, _ := st.ListMemories(ctx, store.MemoryScope{All: true})
	md := Render(ms)
	// An edit that changes nothing but whitespace and adds prose.
	edited := bytes.ReplaceAll(md, []byte("# Memory\n"), []byte("# Memory\n\nmy notes\n"))
	es, errs := Parse(bytes.NewReader(edited), "MEMORY.md")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	sum, err := Apply(ctx, st, svc, es, nil, Options{Exact: true})
	if err != nil || sum.Unchanged != 3 || sum.Added+sum.Changed+sum.Removed != 0 {
		t.Fatalf("%v %v", sum, err)
	}
	want := facts(t, st)

	st2, svc2 := newStore(t)
	sess2 := &store.Session{Name: "trip"}
	if err := st2.CreateSession(ctx, sess2); err != nil || sess2.ID != sess.ID {
		t.Fatalf("session %d: %v", sess2.ID, err)
	}
	for range 2 {
		if _, err := Apply(ctx, st2, svc2, es, nil, Options{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := facts(t, st2); !slices.Equal(got, want) {
		t.Fatalf("imported %v\nwant %v", got, want)
	}
}

// Writers in parallel (each saving and syncing, as the CLI and the daemon
// do) leave a MEMORY.md that parses cleanly and lists every memory, and
// logs of whole lines only.
func TestConcurrentWritersNeverCorrupt(t *testing.T) {
	ctx := context.Background()
	st, svc := newStore(t)
	dir := t.TempDir()
	var wg sync.WaitGroup
	const writers, each = 4, 6
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := &Mirror{Dir: dir}
			for i := range each {
				if _, err := svc.Save(ctx, fmt.Sprintf("writer %d fact %d about topic %d%d", w, i, w*31, i*17), nil, 0); err != nil {
					t.Error(err)
					return
				}
				if err := m.Sync(ctx, st, fmt.Sprintf("w%d", w), false); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	raw, err := os.ReadFile(filepath.Join(dir, MemoryFile))
	if err != nil {
		t.Fatal(err)
	}
	es, errs := Parse(bytes.NewReader(raw), MemoryFile)
	if len(errs) != 0 || len(es) != writers*each {
		t.Fatalf("MEMORY.md: %d entries, errors %v", len(es), errs)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "2*.md"))
	added := 0
	for _, l := range logs {
		raw, _ := os.ReadFile(l)
		les, lerrs := Parse(bytes.NewReader(raw), l)
		if len(lerrs) != 0 {
			t.Fatalf("log %s: %v", l, lerrs)
		}
		added += len(les)
	}
	if added != writers*each {
		t.Fatalf("logs hold %d lines, want %d", added, writers*each)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) != 0 {
		t.Fatalf("temp files left: %v", left)
	}
}

func TestHandEditIsKept(t *testing.T) {
	ctx := context.Background()
	st, svc := newStore(t)
	dir := t.TempDir()
	m := &Mirror{Dir: dir}
	svc.Save(ctx, "first", nil, 0)
	if err := m.Sync(ctx, st, "cli", false); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, MemoryFile)
	os.WriteFile(path, []byte("- [global] mine\n"), 0o600)
	svc.Save(ctx, "second", nil, 0)
	var he *HandEditedError
	if err := m.Sync(ctx, st, "cli", false); !errors.As(err, &he) || !strings.Contains(err.Error(), "changed outside asky") {
		t.Fatalf("err %v", err)
	}
	if raw, _ := os.ReadFile(path); string(raw) != "- [global] mine\n" {
		t.Fatalf("hand edit overwritten: %q", raw)
	}
	shown := m.Shown()
	if !shown(1) || shown(2) {
		t.Fatal("only memory 1 was ever shown in the file")
	}
}
