package shortlist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/askygo/asky/internal/llm"
)

// DefaultCooldown is how long a failed embedding provider is left alone:
// long enough that a run of questions does not pay its retries on every
// turn (0.5–0.7 s for a refused connection, up to the scoring budget for
// a server answering 5xx), short enough that a restarted server is used
// again within minutes.
const DefaultCooldown = 2 * time.Minute

// fairTry is the least time a call cut by its deadline must have had for
// the cut to count against the provider: with less, the shortlist budget
// ran out, not the provider.
const fairTry = time.Second

// CooldownFile is the marker's file name in asky's cache directory.
const CooldownFile = "embedder-down.json"

// Cooldown remembers that an embedding provider failed, so the turns that
// follow within Period score with the fallback at once (Guard). The
// daemon keeps one in memory for the process; the CLI, one process per
// turn, shares a small marker file (Path). The file is replaced by an
// atomic rename, so a concurrent reader sees the old mark or the new one;
// two processes failing at once write equivalent marks, and a clear racing
// a failure leaves either, which the next turn corrects. A zero Cooldown
// is in memory with DefaultCooldown.
type Cooldown struct {
	// Path is the marker file; empty keeps the mark in memory only.
	Path string
	// Period is how long a failure is remembered; zero is DefaultCooldown.
	Period time.Duration

	mu   sync.Mutex
	mark *downMark
}

// downMark is one remembered failure (the marker file's JSON).
type downMark struct {
	Provider string    `json:"provider"`
	Reason   string    `json:"reason"`
	Failed   time.Time `json:"failed"`
	Until    time.Time `json:"until"`
}

// load returns the mark for provider, expired or not, or nil. A missing,
// unreadable or foreign marker (another provider configured since) is no
// mark: the provider is simply tried.
func (c *Cooldown) load(provider string) *downMark {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.mark
	if c.Path != "" {
		m = nil
		if b, err := os.ReadFile(c.Path); err == nil {
			var d downMark
			if json.Unmarshal(b, &d) == nil {
				m = &d
			}
		}
	}
	if m == nil || m.Provider != provider {
		return nil
	}
	return m
}

// fail remembers provider's failure and returns when it will be asked
// again. A marker that cannot be written only costs the next turn the
// retries again, so the write error is dropped.
func (c *Cooldown) fail(provider, reason string, now time.Time) time.Time {
	period := c.Period
	if period <= 0 {
		period = DefaultCooldown
	}
	m := &downMark{Provider: provider, Reason: reason, Failed: now, Until: now.Add(period)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Path == "" {
		c.mark = m
		return m.Until
	}
	if b, err := json.Marshal(m); err == nil {
		_ = writeMarker(c.Path, b)
	}
	return m.Until
}

// writeMarker replaces path with data through a temp file and a rename,
// so a reader never sees half a mark. No fsync: a mark lost in a crash
// only costs one turn the retries again, and the turn waits for this
// write (semanticBounded's settle).
func writeMarker(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

// clear forgets provider's failure after a success.
func (c *Cooldown) clear(provider string) {
	if c.load(provider) == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mark = nil
	if c.Path != "" {
		_ = os.Remove(c.Path)
	}
}

// CoolingError is returned by a guarded embedder while its provider's
// failure is remembered: the provider was not asked.
type CoolingError struct {
	Provider string
	Reason   string
	// Failed is when it failed, Until when it will be asked again and Now
	// when the call was skipped.
	Failed, Until, Now time.Time
}

func (e *CoolingError) Error() string {
	// The provider and when it is asked again come first, the reason last.
	return fmt.Sprintf("%s not asked until %s (in %s): it failed %s ago: %s", e.Provider, e.Until.Format("15:04:05"),
		e.Until.Sub(e.Now).Round(time.Second), e.Now.Sub(e.Failed).Round(time.Second), e.Reason)
}

// Guard returns e wrapped so that a failure saying the provider is down
// (unreachable, server errors, rate limits, a call that timed out after a
// fair try) is remembered in c: until c's period ends every call fails at
// once with a *CoolingError, so the shortlist and link ranking use their
// fallback without paying the provider's retries again. A success clears
// the mark. Failures that are the configuration's (a rejected key, an
// unknown model) fail fast and are not remembered, so a fix is used on
// the next turn. provider names it in messages and tells marks apart (a
// mark left by another configured provider is ignored). Only wrap an
// embedder whose callers fall back: corpus ingest and query must never
// switch embedders, their vectors are in the provider's space. A nil c
// returns e itself.
func Guard(e Embedder, c *Cooldown, provider string, now func() time.Time) Embedder {
	if c == nil {
		return e
	}
	if now == nil {
		now = time.Now
	}
	return &guarded{e: e, c: c, provider: provider, now: now}
}

type guarded struct {
	e        Embedder
	c        *Cooldown
	provider string
	now      func() time.Time
	// marked is set once a mark for the provider was seen or written, so
	// a later success knows to clear it.
	marked atomic.Bool
}

func (g *guarded) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if err := g.skip(); err != nil {
		return nil, err
	}
	start := time.Now()
	v, err := g.e.EmbedQuery(ctx, text)
	return v, g.done(ctx, start, err)
}

func (g *guarded) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	if err := g.skip(); err != nil {
		return nil, err
	}
	start := time.Now()
	vs, err := g.e.EmbedDocuments(ctx, texts)
	return vs, g.done(ctx, start, err)
}

// RelevanceFloor is the wrapped embedder's floor (asked only after it
// embedded).
func (g *guarded) RelevanceFloor() float64 { return semanticFloor(g.e) }

// skip is the CoolingError while the provider's mark holds.
func (g *guarded) skip() error {
	m := g.c.load(g.provider)
	if m == nil {
		return nil
	}
	g.marked.Store(true)
	if now := g.now(); now.Before(m.Until) {
		return &CoolingError{Provider: g.provider, Reason: m.Reason, Failed: m.Failed, Until: m.Until, Now: now}
	}
	return nil
}

// done remembers or clears after a call that started at start (the
// real clock, like ctx's deadline; g.now dates the marks), and
// returns err, noting when a remembered failure will be tried again.
func (g *guarded) done(ctx context.Context, start time.Time, err error) error {
	if err == nil {
		if g.marked.Swap(false) {
			g.c.clear(g.provider)
		}
		return nil
	}
	why, down := downReason(ctx, start, err)
	if !down {
		return err
	}
	until := g.c.fail(g.provider, why, g.now())
	g.marked.Store(true)
	return &rememberedError{err: err, until: until}
}

// rememberedError is a provider failure that Guard remembered: its
// message says when the provider is asked again.
type rememberedError struct {
	err   error
	until time.Time
}

func (e *rememberedError) Error() string { return e.err.Error() + "; " + e.note() }
func (e *rememberedError) Unwrap() error { return e.err }
func (e *rememberedError) note() string {
	return "not asked again until " + e.until.Format("15:04:05")
}

// downReason says whether err means the provider is down, and why in a
// few words. An interruption is the user's, a cut after less than a fair
// try is the budget's, and other failures (a rejected key, a bad request
// or answer) are the configuration's and fail fast anyway.
func downReason(ctx context.Context, start time.Time, err error) (string, bool) {
	if errors.Is(err, context.Canceled) {
		return "", false
	}
	var le *llm.Error
	isLLM := errors.As(err, &le)
	if errors.Is(err, context.DeadlineExceeded) || isLLM && le.Kind == llm.KindTimeout {
		dl, ok := ctx.Deadline()
		if ok && dl.Sub(start) < fairTry {
			return "", false
		}
		if !ok {
			return capRunes(err.Error(), 160), true
		}
		why := fmt.Sprintf("no answer within %s", dl.Sub(start).Round(100*time.Millisecond))
		if msg := err.Error(); !isLLM && msg != context.DeadlineExceeded.Error() {
			// Retries cut short: name the failure they repeated.
			if _, last, ok := strings.Cut(msg, "while waiting to retry: "); ok {
				msg = strings.TrimSuffix(last, ")")
			}
			why += ", retrying " + msg
		}
		return capRunes(why, 160), true
	}
	if !isLLM {
		return "", false
	}
	switch le.Kind {
	case llm.KindUnreachable, llm.KindServer, llm.KindRateLimit:
		why := le.Kind.String()
		if le.Status != 0 {
			why += fmt.Sprintf(" (HTTP %d)", le.Status)
		}
		if le.Message != "" {
			why += ": " + le.Message
		}
		return capRunes(why, 160), true
	}
	return "", false
}
