package compose

import (
	"context"
	"testing"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
)

// A request's SummarizationModel (a chat's override) replaces [general]
// summarization_model for that turn only.
func TestRequestSummarizationModelOverride(t *testing.T) {
	site := seedSite(t)
	core, cfg := testCore(t, t.TempDir())
	cfg.Fetch.AllowHosts = []string{"127.0.0.2"}
	cfg.Fetch.Timeout = 2
	cfg.General.SummarizationModel = ""
	models := map[string]*recModel{"main": {}, "cheap": {}}
	core.Model = func(_ context.Context, alias string) (*config.ResolvedModel, llm.Client, error) {
		return &config.ResolvedModel{Alias: alias, ID: alias, ContextSize: 150}, models[alias], nil
	}
	q := Request{Question: "what does " + site.URL + "/post say?", Model: "main"}
	for _, override := range []string{"cheap", ""} {
		q.SummarizationModel = override
		if _, err := core.Run(context.Background(), q, nil); err != nil {
			t.Fatal(err)
		}
	}
	if models["cheap"].sums != 1 || models["main"].sums != 1 || len(models["main"].main) != 2 {
		t.Fatalf("summaries: cheap %d, main %d; main calls %d", models["cheap"].sums, models["main"].sums, len(models["main"].main))
	}
	if cfg.General.SummarizationModel != "" {
		t.Fatalf("the override leaked into the shared config: %q", cfg.General.SummarizationModel)
	}
}
