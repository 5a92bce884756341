package research

import (
	"context"
	"runtime"
	"sync"

	"github.com/askygo/asky/internal/research/minilm"
)

// TransformerModelName is the compiled-in all-MiniLM-L6-v2 transformer
// (package minilm): the original model's vectors, ~100× the static
// table's cost, so it suits a background pass rather than ingest.
const TransformerModelName = "minilm-l6"

// TransformerEmbedder embeds with the compiled-in transformer. Its
// identity carries the weights' sha256, so changed weights re-embed. The
// weights are mapped on first use, not when the embedder is built.
type TransformerEmbedder struct{}

// Spec describes the embedder for its fingerprint.
func (TransformerEmbedder) Spec() Spec {
	return Spec{Provider: "builtin", Model: TransformerModelName,
		Version: "bert-6x384;int8;wordpiece-uncased;mean;max256;sha256=" + minilm.WeightsSHA256()[:16],
		Dim:     minilm.Dim, Normalized: true}
}

// transformerBatch is how many texts one worker encodes together: short
// texts share kernel calls, and a batch of chunks still fits in cache.
const transformerBatch = 8

// EmbedDocuments encodes texts on all cores: one text is split inside the
// encoder, several are spread over one encoder per core (GOMAXPROCS
// goroutines; a deep pass's batch of 32 keeps at most 4 busy).
func (t TransformerEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	return t.embedYielding(ctx, texts, nil)
}

// embedYielding is EmbedDocuments giving way to fg (nil: never): no new
// group of texts starts and no encoder enters the next step of a layer
// while foreground work runs, so a batch in flight stops within a few
// milliseconds of one core (its groups are then cut at one chunk's worth
// of tokens, see groups) and leaves every core to it. A ctx that ends
// stops the encoders at their next step as well.
func (TransformerEmbedder) embedYielding(ctx context.Context, texts []string, fg Foreground) ([][]float32, error) {
	m, err := minilm.Builtin()
	if err != nil {
		return nil, err
	}
	var pause func() bool
	if fg != nil {
		pause = func() bool { return fg.Idle(ctx) == nil }
	}
	gs := groups(m, texts, fg != nil)
	out := make([][]float32, len(texts))
	encode := func(e *minilm.Encoder, g [2]int) { copy(out[g[0]:], e.Encode(texts[g[0]:g[1]])) }
	workers := min(runtime.GOMAXPROCS(0), len(gs))
	if workers <= 1 {
		e := m.NewEncoder(runtime.GOMAXPROCS(0))
		e.Pause = pause
		for _, g := range gs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			encode(e, g)
		}
		return out, ctx.Err()
	}
	next := make(chan [2]int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := m.NewEncoder(1)
			e.Pause = pause
			for g := range next {
				encode(e, g)
			}
		}()
	}
	for _, g := range gs {
		if ctx.Err() != nil || pause != nil && !pause() {
			break
		}
		select {
		case next <- g:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// groups cuts texts into the runs one encoder takes at once, as [from,
// to) ranges: transformerBatch texts; when small, at most one chunk's
// worth of tokens (minilm.MaxTokens) too, so short texts still share
// kernel calls but a step of the encoder stays a few milliseconds long
// (eight full chunks make it ~30 ms of a core): a turn that starts
// waits that long for the pause.
func groups(m *minilm.Model, texts []string, small bool) [][2]int {
	var gs [][2]int
	var ids []int32
	from, tokens := 0, 0
	for i, t := range texts {
		n := 0
		if small {
			ids = m.Tokens(ids, t)
			n = len(ids)
		}
		if i > from && (i-from == transformerBatch || tokens+n > minilm.MaxTokens) {
			gs = append(gs, [2]int{from, i})
			from, tokens = i, 0
		}
		tokens += n
	}
	if from < len(texts) {
		gs = append(gs, [2]int{from, len(texts)})
	}
	return gs
}

// EmbedQuery encodes one query (symmetric: no prefix), on all cores.
func (TransformerEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	m, err := minilm.Builtin()
	if err != nil {
		return nil, err
	}
	return m.NewEncoder(runtime.GOMAXPROCS(0)).Encode([]string{text})[0], nil
}
