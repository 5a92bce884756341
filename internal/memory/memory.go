// Package memory is asky's user memory: short, durable facts about the user
// that are saved (with deduplication), recalled into later answers, and
// searched. Memories are global (session 0) or belong to one session; a
// turn in a session sees the global memories and its own.
//
// Similarity is lexical (term-set cosine over FTS5 candidates) until an
// Embedder is plugged in; then it is the larger of the dense and the
// lexical cosine, so an exact restatement always deduplicates even under a
// weak embedder.
package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/store"
)

// MaxTextLen caps one memory, in characters: memories are facts, not notes.
const MaxTextLen = 1000

// maxCandidates bounds the FTS5 candidates scored per query.
const maxCandidates = 200

// Errors returned by Save.
var (
	ErrEmpty   = errors.New("memory text is empty")
	ErrTooLong = fmt.Errorf("memory text is longer than %d characters", MaxTextLen)
)

// Store is the persistence memory needs (implemented by *store.Store).
type Store interface {
	SaveMemory(ctx context.Context, m *store.Memory) (int64, error)
	SetMemoryEmbedding(ctx context.Context, id int64, vec []float32, model string) error
	ListMemories(ctx context.Context, scope store.MemoryScope) ([]*store.Memory, error)
	CountMemories(ctx context.Context, scope store.MemoryScope) (int, error)
	MemoryCandidates(ctx context.Context, match string, scope store.MemoryScope, limit int) ([]*store.Memory, error)
}

// Embedder turns texts into vectors. Fingerprint names the vector space
// (model and version); vectors from different fingerprints are never
// compared.
type Embedder interface {
	Fingerprint() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Calibrated is an Embedder whose cosines run on their own scale (a static
// token-table embedder scores paraphrases lower than a transformer does):
// RecallFloor is the dense cosine from which its matches are recalled,
// in place of the configured recall_min_similarity that lexical scores use.
type Calibrated interface {
	RecallFloor() float64
}

// Service saves, recalls and searches memories.
type Service struct {
	store Store
	cfg   config.Memory
	emb   Embedder
}

// New returns a Service. emb may be nil (lexical similarity only).
// Unset thresholds fall back to the documented defaults.
func New(st Store, cfg config.Memory, emb Embedder) *Service {
	if cfg.RecallTopK <= 0 {
		cfg.RecallTopK = 5
	}
	if cfg.RecallMinSimilarity < 0 {
		cfg.RecallMinSimilarity = 0
	}
	if cfg.DedupThreshold <= 0 || cfg.DedupThreshold > 1 {
		cfg.DedupThreshold = 0.90
	}
	return &Service{store: st, cfg: cfg, emb: emb}
}

// Match is a memory with its similarity to a query, in [0, 1].
type Match struct {
	Memory *store.Memory
	Score  float64
}

// SaveResult says what Save did.
type SaveResult struct {
	ID int64
	// Updated is true when an existing, near-identical memory was
	// refreshed instead of a new one being added.
	Updated bool
	// Similarity to the memory that was updated.
	Similarity float64
	// Unconfirmed is set when the memory was saved from a turn that had
	// read untrusted content: it waits for `asky memory confirm`.
	Unconfirmed bool
}

type untrustedKey struct{}

// WithUntrusted marks saves made with ctx as coming from a turn that read
// untrusted content (provenance names it, e.g. "get_url_content
// https://…"): such a memory is stored unconfirmed, scoped to its session,
// and never merged into an existing memory. A page that says "remember
// that …" must not plant a fact that later turns trust.
func WithUntrusted(ctx context.Context, provenance string) context.Context {
	if provenance == "" {
		return ctx
	}
	return context.WithValue(ctx, untrustedKey{}, provenance)
}

// HeldForOwner reports whether saves under ctx are held unconfirmed
// (WithUntrusted).
func HeldForOwner(ctx context.Context) bool { return untrustedSource(ctx) != "" }

func untrustedSource(ctx context.Context) string {
	s, _ := ctx.Value(untrustedKey{}).(string)
	return s
}

// Save stores text as a memory of sessionID (0 = global). When a memory
// visible in that scope is at least DedupThreshold similar, it is updated
// (new wording, merged tags) instead of adding a duplicate.
func (s *Service) Save(ctx context.Context, text string, tags []string, sessionID int64) (SaveResult, error) {
	text = clean(text)
	switch {
	case text == "":
		return SaveResult{}, ErrEmpty
	case utf8.RuneCountInString(text) > MaxTextLen:
		return SaveResult{}, ErrTooLong
	}
	tags = CleanTags(tags)
	vec, model, err := s.embedOne(ctx, text)
	if err != nil {
		return SaveResult{}, err
	}
	if prov := untrustedSource(ctx); prov != "" {
		m := &store.Memory{SessionID: sessionID, Text: text, Tags: tags, Embedding: vec, EmbeddingModel: model,
			Provenance: prov, Unconfirmed: true}
		id, err := s.store.SaveMemory(ctx, m)
		if err != nil {
			return SaveResult{}, err
		}
		return SaveResult{ID: id, Unconfirmed: true}, nil
	}
	scope := store.MemoryScope{SessionID: sessionID, Confirmed: true}
	best, err := s.rank(ctx, text, scope, 1, s.cfg.DedupThreshold, true)
	if err != nil {
		return SaveResult{}, err
	}
	if len(best) > 0 {
		m := best[0].Memory
		m.Text, m.Tags, m.Embedding, m.EmbeddingModel = text, CleanTags(append(m.Tags, tags...)), vec, model
		if _, err := s.store.SaveMemory(ctx, m); err != nil {
			return SaveResult{}, err
		}
		return SaveResult{ID: m.ID, Updated: true, Similarity: best[0].Score}, nil
	}
	m := &store.Memory{SessionID: sessionID, Text: text, Tags: tags, Embedding: vec, EmbeddingModel: model}
	id, err := s.store.SaveMemory(ctx, m)
	if err != nil {
		return SaveResult{}, err
	}
	return SaveResult{ID: id}, nil
}

// Recall returns the memories worth adding to a turn about query: at most
// RecallTopK with similarity ≥ RecallMinSimilarity, best first, from the
// global memories and those of sessionID. With no memories it costs one
// cheap query; with a query of only stopwords, none.
func (s *Service) Recall(ctx context.Context, query string, sessionID int64) ([]Match, error) {
	return s.rank(ctx, query, store.MemoryScope{SessionID: sessionID, Confirmed: true}, s.cfg.RecallTopK, s.cfg.RecallMinSimilarity, false)
}

// Search ranks the memories in scope against query for display: up to
// limit matches with any similarity, best first.
func (s *Service) Search(ctx context.Context, query string, scope store.MemoryScope, limit int) ([]Match, error) {
	return s.rank(ctx, query, scope, limit, 0, false)
}

// rank scores the memories in scope against query and keeps up to limit
// with score ≥ min (and always > 0), best first; ties go to the most
// recently updated. symmetric selects the strict cosine used for
// deduplication (a longer text that merely mentions a memory's words is
// not the same fact) over the recall cosine (see queryCosine).
func (s *Service) rank(ctx context.Context, query string, scope store.MemoryScope, limit int, min float64, symmetric bool) ([]Match, error) {
	qt := terms(query)
	var cands []*store.Memory
	var dense []float64
	var err error
	if s.emb != nil {
		cands, dense, err = s.denseCandidates(ctx, query, scope)
	} else {
		cands, err = s.lexicalCandidates(ctx, qt, scope)
	}
	if err != nil {
		return nil, err
	}
	mterms := make([][]string, len(cands))
	vocab := map[string]bool{}
	for i, m := range cands {
		mterms[i] = terms(m.Text)
		for _, t := range mterms[i] {
			vocab[t] = true
		}
	}
	denseMin := min
	if c, ok := s.emb.(Calibrated); ok && !symmetric {
		denseMin = c.RecallFloor()
	}
	matches := make([]Match, 0, len(cands))
	for i, m := range cands {
		score := cosine(qt, mterms[i])
		if !symmetric {
			score = queryCosine(qt, mterms[i], vocab)
		}
		keep := score > 0 && score >= min
		if dense != nil {
			keep = keep || dense[i] > 0 && dense[i] >= denseMin
			score = max(score, dense[i])
		}
		if keep {
			matches = append(matches, Match{Memory: m, Score: score})
		}
	}
	slices.SortStableFunc(matches, func(a, b Match) int {
		switch {
		case a.Score != b.Score:
			if a.Score > b.Score {
				return -1
			}
			return 1
		case !a.Memory.UpdatedAt.Equal(b.Memory.UpdatedAt):
			return b.Memory.UpdatedAt.Compare(a.Memory.UpdatedAt)
		}
		return int(b.Memory.ID - a.Memory.ID)
	})
	if limit > 0 && len(matches) > limit {
		matches = matches[:limit]
	}
	return matches, nil
}

// lexicalCandidates returns the memories sharing a term prefix with the
// query (FTS5), best bm25 first.
func (s *Service) lexicalCandidates(ctx context.Context, qt []string, scope store.MemoryScope) ([]*store.Memory, error) {
	if len(qt) == 0 {
		return nil, nil
	}
	return s.store.MemoryCandidates(ctx, ftsQuery(qt), scope, maxCandidates)
}

// denseCandidates returns every memory in scope with its dense cosine to
// the query, re-embedding (and storing) vectors made by another embedder.
func (s *Service) denseCandidates(ctx context.Context, query string, scope store.MemoryScope) ([]*store.Memory, []float64, error) {
	n, err := s.store.CountMemories(ctx, scope)
	if err != nil || n == 0 {
		return nil, nil, err
	}
	all, err := s.store.ListMemories(ctx, scope)
	if err != nil {
		return nil, nil, err
	}
	fp := s.emb.Fingerprint()
	var stale []*store.Memory
	for _, m := range all {
		if m.EmbeddingModel != fp || len(m.Embedding) == 0 {
			stale = append(stale, m)
		}
	}
	texts := []string{query}
	for _, m := range stale {
		texts = append(texts, m.Text)
	}
	vecs, err := s.emb.Embed(ctx, texts)
	if err != nil {
		return nil, nil, fmt.Errorf("embed memories: %w", err)
	}
	if len(vecs) != len(texts) {
		return nil, nil, fmt.Errorf("embed memories: embedder returned %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, m := range stale {
		m.Embedding, m.EmbeddingModel = vecs[i+1], fp
		if err := s.store.SetMemoryEmbedding(ctx, m.ID, m.Embedding, fp); err != nil {
			return nil, nil, err
		}
	}
	dense := make([]float64, len(all))
	for i, m := range all {
		dense[i] = denseCosine(vecs[0], m.Embedding)
	}
	return all, dense, nil
}

func (s *Service) embedOne(ctx context.Context, text string) ([]float32, string, error) {
	if s.emb == nil {
		return nil, "", nil
	}
	vecs, err := s.emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, "", fmt.Errorf("embed memory: %w", err)
	}
	if len(vecs) != 1 {
		return nil, "", fmt.Errorf("embed memory: embedder returned %d vectors for 1 text", len(vecs))
	}
	return vecs[0], s.emb.Fingerprint(), nil
}

// clean flattens text to one line without control characters: a memory
// ends up in system prompts and terminals, where an escape sequence or a
// line break could do more than state a fact.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && !unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// CleanTags trims, lowercases and deduplicates tags, dropping empty ones.
func CleanTags(tags []string) []string {
	out := []string{}
	for _, t := range tags {
		t = strings.ToLower(clean(t))
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
