package research

import (
	"context"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/research/minilm"
)

func TestBuiltinTransformerEmbedder(t *testing.T) {
	e, err := NewEmbedder(config.Embedding{Provider: "builtin", Model: "minilm-l6"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sp := e.Spec()
	if sp.Dim != 384 || !sp.Normalized || !strings.Contains(sp.Version, "sha256="+minilm.WeightsSHA256()[:16]) {
		t.Fatalf("spec %+v", sp)
	}
	static, _ := NewEmbedder(config.Embedding{}, nil, nil)
	if sp.Fingerprint() == static.Spec().Fingerprint() {
		t.Fatal("the transformer shares the static embedder's fingerprint")
	}
	ctx := context.Background()
	docs := []string{"I cycle to work every morning.", "The invoice is due at the end of the month.", "Bananas are rich in potassium."}
	vs, err := e.EmbedDocuments(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	q, err := e.EmbedQuery(ctx, "how do I commute")
	if err != nil {
		t.Fatal(err)
	}
	if c0, c1, c2 := Cosine(q, vs[0]), Cosine(q, vs[1]), Cosine(q, vs[2]); c0 < c1+0.1 || c0 < c2+0.1 {
		t.Fatalf("paraphrase not found: cycle %.3f, invoice %.3f, bananas %.3f", c0, c1, c2)
	}
	again, _ := e.EmbedQuery(ctx, docs[1])
	if c := Cosine(again, vs[1]); c < 0.9999 {
		t.Fatalf("document and query vectors of one text differ: cosine %.6f", c)
	}
}

// With the transformer configured, memory recall must use it rather than
// silently falling back to keyword matching.
func TestForMemoryUsesTheTransformer(t *testing.T) {
	mv, err := ForMemory(config.Embedding{Provider: "builtin", Model: TransformerModelName}, nil, nil)
	if err != nil || mv == nil {
		t.Fatalf("ForMemory(minilm-l6) = %v, %v; want the transformer", mv, err)
	}
	if want := (TransformerEmbedder{}).Spec().Fingerprint(); mv.Fingerprint() != want {
		t.Fatalf("fingerprint %q, want the transformer's %q", mv.Fingerprint(), want)
	}
}
