package compose

import (
	"context"
	"fmt"
	"sync"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/turn"
)

// summaryModel is the model every summary of a turn uses (page summaries,
// summarize_section, compaction, -s): [general] summarization_model when
// set, else the turn's own model and client. It is resolved on first use,
// which is always after the turn's model is known.
type summaryModel struct {
	once   sync.Once
	model  *config.ResolvedModel
	client llm.Client
	err    error
}

// summarizer returns the summarization model and client for req.
func (x *composer) summarizer(ctx context.Context, req *turn.Request) (*config.ResolvedModel, llm.Client, error) {
	alias := x.cfg.General.SummarizationModel
	if alias == "" || (req.Model != nil && alias == req.Model.Alias) {
		if req.Model == nil || req.Client == nil {
			return nil, nil, fmt.Errorf("no summarization model available")
		}
		return req.Model, req.Client, nil
	}
	x.sum.once.Do(func() {
		x.sum.model, x.sum.client, x.sum.err = x.model(ctx, alias)
		if x.sum.err != nil {
			x.sum.err = fmt.Errorf("general.summarization_model: %w", x.sum.err)
		}
	})
	return x.sum.model, x.sum.client, x.sum.err
}

// canSummarize reports whether a summarization model resolves for this
// request, without building a client: the configured summarization model,
// else the turn's own model (which a run resolves before any tool runs).
func (x *composer) canSummarize(ctx context.Context) bool {
	alias := x.cfg.General.SummarizationModel
	if alias == "" && !x.listing {
		return true
	}
	if alias == "" {
		alias = x.q.Model
	}
	if x.Model != nil {
		_, _, err := x.Model(ctx, alias)
		return err == nil
	}
	// No local-server probe: listing tools stays instant.
	_, err := x.cfg.LookupModel(ctx, alias, config.Env{Getenv: x.Getenv})
	return err == nil
}
