package compose

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/turn"
)

// routedClient answers by the system prompt: sub-questions, facts, or the
// final answer; it records every request.
type routedClient struct {
	mu   sync.Mutex
	reqs []llm.Request
}

func (c *routedClient) Chat(_ context.Context, req llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs = append(c.reqs, req)
	sys := req.Messages[0].Content
	reply := "# Answer\n\ndone"
	switch {
	case strings.Contains(sys, "sub-questions"):
		reply = `Here: ["how does the pager roll back?", "what does the journal hold?"]`
	case strings.Contains(sys, "Extract the facts"):
		reply = `[{"fact": "minor detail", "relevance": "low"}, {"fact": "The pager restores original pages from the journal", "relevance": "high"}]`
	}
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: reply}}, nil
}

func (c *routedClient) main() llm.Request {
	for _, r := range c.reqs {
		if strings.Contains(r.Messages[0].Content, "You are asky") {
			return r
		}
	}
	return llm.Request{}
}

func researchHome(t *testing.T, cfgTOML string) (string, string) {
	t.Helper()
	home, docs := t.TempDir(), filepath.Join(t.TempDir(), "papers")
	os.MkdirAll(docs, 0o755)
	os.WriteFile(filepath.Join(docs, "pager.md"), []byte("# Pager\n\n## Rollback\n\nThe pager rolls back the journal when a transaction fails: it restores the original pages.\n"), 0o644)
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfgTOML), 0o600)
	return home, docs
}

func TestEvidenceExtractionAndLLMExpansion(t *testing.T) {
	home, docs := researchHome(t, "[research]\nevidence_extraction_enabled = true\nquery_expansion_mode = \"llm\"\n")
	core, _ := testCore(t, home)
	client := &routedClient{}
	fixedModel(core, client, 32000)
	var debug []string
	_, err := core.Run(context.Background(), Request{Question: "how does the pager recover after a failed transaction?", ResearchSet: true, Research: docs},
		func(ev turn.Event) {
			if ev.Kind == turn.EventDebug {
				debug = append(debug, ev.Text)
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	d := strings.Join(debug, "\n")
	if !strings.Contains(d, `query expansion (llm): ["how does the pager recover after a failed transaction?" "how does the pager roll back?" "what does the journal hold?"]`) {
		t.Errorf("expansion: %s", d)
	}
	user := client.main().Messages[len(client.main().Messages)-1].Content
	want := "Structured Evidence Extracted from Sources:\n1. [HIGH] The pager restores original pages from the journal (Source: corpus://cache/1)\n2. [LOW] minor detail"
	if !strings.Contains(user, want) {
		t.Fatalf("user message:\n%s", user)
	}
	if i, j := strings.Index(user, "Bootstrap retrieval evidence"), strings.Index(user, "Structured Evidence"); i < 0 || j < i {
		t.Errorf("evidence is not after the corpus context")
	}
	calls := 0
	for _, r := range client.reqs {
		if strings.Contains(r.Messages[0].Content, "Extract the facts") {
			calls++
		}
	}
	if calls == 0 || calls > 10 {
		t.Errorf("%d extraction calls", calls)
	}
}

func TestEvidenceExtractionOffByDefault(t *testing.T) {
	home, docs := researchHome(t, "")
	core, _ := testCore(t, home)
	client := &routedClient{}
	fixedModel(core, client, 32000)
	if _, err := core.Run(context.Background(), Request{Question: "how does the pager recover?", ResearchSet: true, Research: docs}, nil); err != nil {
		t.Fatal(err)
	}
	if len(client.reqs) != 1 {
		t.Fatalf("%d model calls, want only the answer", len(client.reqs))
	}
}

func TestOneShotClassification(t *testing.T) {
	home, docs := researchHome(t, "")
	core, _ := testCore(t, home)
	client := &routedClient{}
	fixedModel(core, client, 32000)
	if _, err := core.Run(context.Background(), Request{Question: "summarize the key points of these notes", ResearchSet: true, Research: docs}, nil); err != nil {
		t.Fatal(err)
	}
	if sys := client.main().Messages[0].Content; !strings.Contains(sys, "summary request over a small set") {
		t.Errorf("no one-shot guidance:\n%s", sys)
	}
	client = &routedClient{}
	fixedModel(core, client, 32000)
	if _, err := core.Run(context.Background(), Request{Question: "how does the pager recover after a crash?", ResearchSet: true, Research: docs}, nil); err != nil {
		t.Fatal(err)
	}
	if sys := client.main().Messages[0].Content; strings.Contains(sys, "summary request over a small set") {
		t.Errorf("one-shot guidance for a research question")
	}
}
