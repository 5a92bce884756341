package shortlist

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askygo/asky/internal/llm"
)

// flakyEmbedder counts its calls and fails with err while err is set;
// otherwise it answers like bagEmbedder.
type flakyEmbedder struct {
	calls atomic.Int32
	err   error
}

func (f *flakyEmbedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	f.calls.Add(1)
	if f.err != nil {
		return nil, f.err
	}
	return bagEmbedder{}.EmbedQuery(ctx, text)
}

func (f *flakyEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	f.calls.Add(1)
	if f.err != nil {
		return nil, f.err
	}
	return bagEmbedder{}.EmbedDocuments(ctx, texts)
}

// fakeClock is a settable clock for the cooldown's marks.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func unreachable() error {
	return &llm.Error{Kind: llm.KindUnreachable, Provider: "openai embeddings at http://127.0.0.1:1/v1", Message: "connection refused (is the server running?)"}
}

const testProvider = `openai embeddings "m" at http://127.0.0.1:1/v1`

// Only failures that say the provider is down are remembered: the ones
// its retries make slow. A rejected key or a bad request fails fast and is
// the configuration's, so a fix must be used on the very next turn.
func TestGuardRemembersOnlyProviderDown(t *testing.T) {
	deadline := func(d time.Duration) context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		t.Cleanup(cancel)
		return ctx
	}
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		err      error
		remember bool
	}{
		{"unreachable", context.Background(), unreachable(), true},
		{"server error", context.Background(), &llm.Error{Kind: llm.KindServer, Status: 503, Message: "overloaded"}, true},
		{"rate limited", context.Background(), &llm.Error{Kind: llm.KindRateLimit, Status: 429}, true},
		{"timed out", context.Background(), &llm.Error{Kind: llm.KindTimeout, Message: "no response within 2m0s"}, true},
		{"retries cut after a fair try", deadline(time.Minute), fmt.Errorf("%w (while waiting to retry: server error)", context.DeadlineExceeded), true},
		{"budget cut before a fair try", deadline(100 * time.Millisecond), &llm.Error{Kind: llm.KindTimeout, Err: context.DeadlineExceeded}, false},
		{"interrupted", context.Background(), fmt.Errorf("openai embeddings: %w", context.Canceled), false},
		{"key rejected", context.Background(), &llm.Error{Kind: llm.KindAuth, Status: 401}, false},
		{"unknown model", context.Background(), &llm.Error{Kind: llm.KindBadRequest, Status: 404}, false},
		{"not an embedder error", context.Background(), errors.New("unknown embedding provider"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inner := &flakyEmbedder{err: tc.err}
			g := Guard(inner, &Cooldown{}, testProvider, nil)
			if _, err := g.EmbedQuery(tc.ctx, "q"); !errors.Is(err, tc.err) {
				t.Fatalf("first call: %v, want the provider's error", err)
			}
			_, err := g.EmbedQuery(tc.ctx, "q")
			var cooling *CoolingError
			if got := errors.As(err, &cooling); got != tc.remember {
				t.Fatalf("second call: %v (cooling %v, want %v)", err, got, tc.remember)
			}
			if want := int32(map[bool]int32{true: 1, false: 2}[tc.remember]); inner.calls.Load() != want {
				t.Errorf("provider asked %d times, want %d", inner.calls.Load(), want)
			}
		})
	}
}

// The cooldown ends after its period (the provider is asked again), a
// success clears the mark at once, and a new failure marks it again.
func TestGuardRetriesAfterPeriodAndSuccessClears(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 24, 6, 20, 0, 0, time.UTC)}
	inner := &flakyEmbedder{err: unreachable()}
	c := &Cooldown{}
	g := Guard(inner, c, testProvider, clock.now)
	ctx := context.Background()
	_, err := g.EmbedDocuments(ctx, []string{"a"})
	if err == nil || !strings.Contains(err.Error(), "not asked again until 06:22:00") {
		t.Fatalf("first failure does not say when it is tried again: %v", err)
	}
	clock.t = clock.t.Add(40 * time.Second)
	_, err = g.EmbedQuery(ctx, "q")
	want := testProvider + " not asked until 06:22:00 (in 1m20s): it failed 40s ago: unreachable: connection refused (is the server running?)"
	if err == nil || err.Error() != want {
		t.Fatalf("in the cooldown:\n got %v\nwant %s", err, want)
	}
	clock.t = clock.t.Add(DefaultCooldown)
	inner.err = nil
	if _, err := g.EmbedQuery(ctx, "q"); err != nil || inner.calls.Load() != 2 {
		t.Fatalf("after the period: %v, %d calls", err, inner.calls.Load())
	}
	if c.load(testProvider) != nil {
		t.Fatal("a success did not clear the mark")
	}
	inner.err = unreachable()
	g.EmbedQuery(ctx, "q")
	if m := c.load(testProvider); m == nil || !m.Until.Equal(clock.t.Add(DefaultCooldown)) {
		t.Fatalf("a new failure is not remembered from now: %+v", m)
	}
}

// The CLI runs one process per turn: the mark lives in a file that the
// next process (a new Cooldown on the same path) reads. A mark left by
// another provider, or a corrupt file, does not stop the provider.
func TestCooldownMarkerFileOutlivesTheProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", CooldownFile)
	clock := &fakeClock{t: time.Date(2026, 11, 24, 6, 20, 0, 0, time.UTC)}
	ctx := context.Background()
	first := &flakyEmbedder{err: unreachable()}
	Guard(first, &Cooldown{Path: path}, testProvider, clock.now).EmbedQuery(ctx, "q")
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("no private marker after the failure: %v %v", fi, err)
	}
	clock.t = clock.t.Add(time.Minute)
	next := &flakyEmbedder{}
	_, err := Guard(next, &Cooldown{Path: path}, testProvider, clock.now).EmbedQuery(ctx, "q")
	var cooling *CoolingError
	if !errors.As(err, &cooling) || next.calls.Load() != 0 {
		t.Fatalf("the next process asked the provider (%d calls): %v", next.calls.Load(), err)
	}
	other := &flakyEmbedder{}
	if _, err := Guard(other, &Cooldown{Path: path}, `ollama embeddings "m"`, clock.now).EmbedQuery(ctx, "q"); err != nil || other.calls.Load() != 1 {
		t.Fatalf("another provider was held by this one's mark: %v", err)
	}
	clock.t = clock.t.Add(DefaultCooldown)
	if _, err := Guard(next, &Cooldown{Path: path}, testProvider, clock.now).EmbedQuery(ctx, "q"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a success left the marker: %v", err)
	}
	os.WriteFile(path, []byte("{not json"), 0o600)
	if _, err := Guard(next, &Cooldown{Path: path}, testProvider, clock.now).EmbedQuery(ctx, "q"); err != nil {
		t.Fatalf("a corrupt marker stopped the provider: %v", err)
	}
}

// In the cooldown the shortlist scores with the builtin at once, without
// asking the provider, and -v says why on one line: the provider and
// when it is asked again.
func TestShortlistSkipsProviderInCooldown(t *testing.T) {
	base, paths := commuteSite(t)
	inner := &flakyEmbedder{err: unreachable()}
	clock := &fakeClock{t: time.Now()}
	primary := Guard(inner, &Cooldown{}, testProvider, clock.now)
	s := &Shortlister{Search: &fakeSearch{hits: hits(base, paths...)}, Fetch: guardedFetcher(t), Embedder: primary, Fallback: builtinStatic()}
	run := func() *Result {
		res, err := s.Run(context.Background(), Input{Prompt: "how do I commute"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Candidates) != 2 || !strings.HasSuffix(res.Candidates[0].URL, "/routine") {
			t.Fatalf("not scored by the builtin: %+v", res.Candidates)
		}
		return res
	}
	res := run()
	if calls := inner.calls.Load(); calls != 1 || res.Failures[0].Skipped {
		t.Fatalf("first run: %d calls, failures %+v", calls, res.Failures)
	}
	clock.t = clock.t.Add(30 * time.Second)
	res = run()
	if calls := inner.calls.Load(); calls != 1 {
		t.Fatalf("the provider was asked %d times in its cooldown", calls)
	}
	if len(res.Failures) != 1 || !res.Failures[0].Skipped {
		t.Fatalf("failures = %+v", res.Failures)
	}
	var lines []string
	for _, l := range strings.Split(res.Report(), "\n") {
		if strings.Contains(l, "embed") {
			lines = append(lines, l)
		}
	}
	until := clock.t.Add(DefaultCooldown - 30*time.Second).Format("15:04:05")
	want := "  skipped embed: " + testProvider + " not asked until " + until + " (in 1m30s): it failed 30s ago: unreachable: connection refused (is the server running?) (scored with the builtin embedder instead)"
	if len(lines) != 1 || lines[0] != want {
		t.Fatalf("-v:\n%s\nwant:\n%s", strings.Join(lines, "\n"), want)
	}
}
