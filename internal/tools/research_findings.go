package tools

// The research tools that keep what the model learned in a research
// session: saving findings and recalling them.

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strings"

	"github.com/askygo/asky/internal/research"
	"github.com/askygo/asky/internal/store"
)

func (env *ResearchEnv) sessionID() int64 {
	if env.SessionID == nil {
		return 0
	}
	return env.SessionID()
}

func (env *ResearchEnv) saveFinding(ctx context.Context, raw json.RawMessage) (Result, error) {
	var a struct {
		Finding     string   `json:"finding"`
		SourceURL   string   `json:"source_url"`
		SourceTitle string   `json:"source_title"`
		Tags        []string `json:"tags"`
	}
	if err := decode(raw, &a); err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(a.Finding) == "" {
		return Result{}, errors.New("finding is required")
	}
	if err := env.Index.Open(ctx); err != nil {
		return Result{}, err
	}
	vec, err := env.Index.Emb.EmbedQuery(ctx, a.Finding)
	if err != nil {
		return Result{}, err
	}
	tags, _ := json.Marshal(append([]string{}, a.Tags...))
	id, err := env.Store.AddFinding(ctx, &store.Finding{SessionID: env.sessionID(), Text: a.Finding, SourceURL: a.SourceURL,
		SourceTitle: a.SourceTitle, Tags: string(tags), Fingerprint: env.Index.Fingerprint(), Vec: vec})
	if err != nil {
		return Result{}, err
	}
	return jsonResult(map[string]any{"saved": true, "id": id}, nil)
}

func (env *ResearchEnv) queryResearchMemory(ctx context.Context, raw json.RawMessage) (Result, error) {
	var a struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := decode(raw, &a); err != nil {
		return Result{}, err
	}
	if a.Limit <= 0 {
		a.Limit = 10
	}
	fs, err := env.Store.Findings(ctx, env.sessionID())
	if err != nil {
		return Result{}, err
	}
	if err := env.Index.Open(ctx); err != nil {
		return Result{}, err
	}
	qv, err := env.Index.Emb.EmbedQuery(ctx, a.Query)
	if err != nil {
		return Result{}, err
	}
	qTok := map[string]bool{}
	for _, t := range research.ContentTokens(a.Query) {
		qTok[t] = true
	}
	type found struct {
		Finding     string   `json:"finding"`
		SourceURL   string   `json:"source_url,omitempty"`
		SourceTitle string   `json:"source_title,omitempty"`
		Tags        []string `json:"tags,omitempty"`
		Relevance   float64  `json:"relevance"`
		SavedAt     string   `json:"saved_at"`
	}
	// Semantic scores come from an in-memory chromem-go collection built
	// from the findings' stored vectors of the active space.
	var ids []int64
	var flat []float32
	for _, f := range fs {
		if f.Fingerprint == env.Index.Fingerprint() && len(f.Vec) == len(qv) {
			ids = append(ids, f.ID)
			flat = append(flat, f.Vec...)
		}
	}
	sem := map[int64]float64{}
	if len(ids) > 0 {
		scored, err := research.ChromemTopK(ctx, ids, flat, len(qv), qv, len(ids))
		if err != nil {
			return Result{}, err
		}
		for _, s := range scored {
			sem[s.ID] = math.Max(0, s.Score)
		}
	}
	var out []found
	for _, f := range fs {
		lex := 0.0
		for t := range qTok {
			if strings.Contains(" "+strings.Join(research.Tokens(f.Text), " ")+" ", " "+t+" ") {
				lex++
			}
		}
		if len(qTok) > 0 {
			lex /= float64(len(qTok))
		}
		rel := math.Round((0.7*sem[f.ID]+0.3*lex)*1000) / 1000
		var tags []string
		_ = json.Unmarshal([]byte(f.Tags), &tags)
		out = append(out, found{Finding: f.Text, SourceURL: f.SourceURL, SourceTitle: f.SourceTitle, Tags: tags, Relevance: rel, SavedAt: f.CreatedAt.Format("2006-01-02 15:04")})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Relevance > out[j].Relevance })
	if len(out) > a.Limit {
		out = out[:a.Limit]
	}
	return jsonResult(map[string]any{"findings": out, "count": len(out), "search_type": "hybrid"}, nil)
}
