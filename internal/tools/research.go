package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/askygo/asky/internal/research"
	"github.com/askygo/asky/internal/store"
)

var (
	//go:embed research_get_relevant_content.md
	descGetRelevantContent string
	//go:embed research_get_full_content.md
	descGetFullContent string
	//go:embed research_list_sections.md
	descListSections string
	//go:embed research_summarize_section.md
	descSummarizeSection string
	//go:embed research_save_finding.md
	descSaveFinding string
	//go:embed research_query_research_memory.md
	descQueryResearchMemory string
)

// Research tool names.
const (
	ToolGetRelevantContent  = "get_relevant_content"
	ToolGetFullContent      = "get_full_content"
	ToolListSections        = "list_sections"
	ToolSummarizeSection    = "summarize_section"
	ToolSaveFinding         = "save_finding"
	ToolQueryResearchMemory = "query_research_memory"
)

// fullContentMaxChars caps get_full_content output per source.
const fullContentMaxChars = 30000

// ResearchEnv is what the research tools work on. Preloaded and SessionID
// are read at call time, so a preloader may fill them after registration.
type ResearchEnv struct {
	Index *research.Index
	Store *store.Store
	// SessionID scopes findings (0 = one-shot).
	SessionID func() int64
	// Preloaded are the sources given with -r; searched when the model
	// names none.
	Preloaded    *[]int64
	MaxChunks    int
	MinRelevance float64
	// Summarize calls the model; nil disables summarize_section.
	Summarize func(ctx context.Context, title, text, detail string) (string, error)
}

// ResearchTools returns the corpus tools for the model.
func ResearchTools(env *ResearchEnv) []*Tool {
	ts := []*Tool{
		{
			Name: ToolGetRelevantContent, Untrusted: true, Description: strings.TrimSpace(descGetRelevantContent),
			Parameters: json.RawMessage(`{"type":"object","properties":{
"query":{"type":"string","description":"what to look for"},
"sources":{"type":"array","items":{"type":"string"},"description":"corpus handles or section refs"},
"urls":{"type":"array","items":{"type":"string"},"description":"alias of sources"},
"max_chunks":{"type":"integer","description":"chunks per source (default 5)"},
"section_id":{"type":"string"},"section_ref":{"type":"string"}},"required":["query"]}`),
			Guideline: "Answer from the corpus: call get_relevant_content with focused queries and cite the corpus://cache handles you used.",
			Summary:   summaryField("query"),
			Run:       env.getRelevantContent,
		},
		{
			Name: ToolGetFullContent, Untrusted: true, Description: strings.TrimSpace(descGetFullContent),
			Parameters: json.RawMessage(`{"type":"object","properties":{
"sources":{"type":"array","items":{"type":"string"}},"urls":{"type":"array","items":{"type":"string"}},
"section_id":{"type":"string"},"section_ref":{"type":"string"}}}`),
			Summary: summaryField("section_ref"),
			Run:     env.getFullContent,
		},
		{
			Name: ToolListSections, Untrusted: true, Description: strings.TrimSpace(descListSections),
			Parameters: json.RawMessage(`{"type":"object","properties":{
"source":{"type":"string"},"sources":{"type":"array","items":{"type":"string"}},"include_toc":{"type":"boolean"}}}`),
			Summary: summaryField("source"),
			Run:     env.listSections,
		},
		{
			Name: ToolSaveFinding, Description: strings.TrimSpace(descSaveFinding),
			Parameters: json.RawMessage(`{"type":"object","properties":{
"finding":{"type":"string"},"source_url":{"type":"string"},"source_title":{"type":"string"},
"tags":{"type":"array","items":{"type":"string"}}},"required":["finding"]}`),
			Summary: summaryField("finding"),
			Run:     env.saveFinding,
		},
		{
			Name: ToolQueryResearchMemory, Untrusted: true, Description: strings.TrimSpace(descQueryResearchMemory),
			Parameters: json.RawMessage(`{"type":"object","properties":{
"query":{"type":"string"},"limit":{"type":"integer","description":"default 10"}},"required":["query"]}`),
			Summary: summaryField("query"),
			Run:     env.queryResearchMemory,
		},
	}
	if env.Summarize != nil {
		ts = append(ts, &Tool{
			Name: ToolSummarizeSection, Untrusted: true, Description: strings.TrimSpace(descSummarizeSection),
			Parameters: json.RawMessage(`{"type":"object","properties":{
"source":{"type":"string"},"section_id":{"type":"string"},"section_ref":{"type":"string"},"section_query":{"type":"string"},
"detail":{"type":"string","enum":["compact","balanced","max"]}},"required":["source"]}`),
			Summary: summaryField("section_query"),
			Run:     env.summarizeSection,
		})
	}
	return ts
}

func summaryField(name string) func(json.RawMessage) string {
	return func(args json.RawMessage) string {
		var m map[string]any
		_ = json.Unmarshal(args, &m)
		if s, ok := m[name].(string); ok && s != "" {
			if len(s) > 60 {
				s = s[:60] + "…"
			}
			return fmt.Sprintf("%q", s)
		}
		return ""
	}
}

type sourceArgs struct {
	Sources    []string `json:"sources"`
	URLs       []string `json:"urls"`
	Source     string   `json:"source"`
	SectionID  string   `json:"section_id"`
	SectionRef string   `json:"section_ref"`
}

// target is a resolved source with an optional section.
type target struct {
	id      int64
	section string
}

// targets resolves handles; only corpus://cache handles are accepted, so
// the model can never name a local path.
func (a sourceArgs) targets() ([]target, error) {
	refs := append(append([]string{}, a.Sources...), a.URLs...)
	if a.Source != "" {
		refs = append(refs, a.Source)
	}
	if a.SectionRef != "" {
		refs = append(refs, a.SectionRef)
	}
	var out []target
	seen := map[target]bool{}
	for _, r := range refs {
		id, sec, ok := research.ParseHandle(r)
		if !ok {
			return nil, fmt.Errorf("%q is not a corpus handle; use corpus://cache/<id> from the preloaded sources", r)
		}
		if sec == "" {
			sec = a.SectionID
		}
		t := target{id, sec}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out, nil
}

// targetsOrPreloaded is what a names, or else every preloaded source
// (with a's section).
func (env *ResearchEnv) targetsOrPreloaded(a sourceArgs) ([]target, error) {
	ts, err := a.targets()
	if err != nil || len(ts) > 0 {
		return ts, err
	}
	for _, id := range env.preloaded() {
		ts = append(ts, target{id: id, section: a.SectionID})
	}
	if len(ts) == 0 {
		return nil, errors.New("sources is required: give corpus://cache/<id> handles")
	}
	return ts, nil
}

func decode(args json.RawMessage, v any) error {
	if len(args) == 0 {
		return nil
	}
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

func jsonResult(v any, sources []Source) (Result, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Result{}, err
	}
	return Result{Content: string(b), Sources: sources}, nil
}

func (env *ResearchEnv) preloaded() []int64 {
	if env.Preloaded == nil {
		return nil
	}
	return *env.Preloaded
}

func (env *ResearchEnv) getRelevantContent(ctx context.Context, raw json.RawMessage) (Result, error) {
	var a struct {
		sourceArgs
		Query     string `json:"query"`
		MaxChunks int    `json:"max_chunks"`
	}
	if err := decode(raw, &a); err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(a.Query) == "" {
		return Result{}, errors.New("query is required")
	}
	ts, err := a.targets()
	if err != nil {
		return Result{}, err
	}
	maxChunks := a.MaxChunks
	if maxChunks <= 0 {
		maxChunks = env.MaxChunks
	}
	if maxChunks <= 0 {
		maxChunks = 5
	}
	maxChunks = min(maxChunks, 20)
	var ids []int64
	sections := map[int64]string{}
	for _, t := range ts {
		ids = append(ids, t.id)
		if t.section != "" {
			sections[t.id] = t.section
		}
	}
	if len(ids) == 0 {
		ids = env.preloaded()
	}
	topK := maxChunks * max(1, len(ids))
	if len(sections) > 0 {
		topK *= 4 // section filtering happens after retrieval
	}
	hits, err := env.Index.Search(ctx, a.Query, research.SearchOptions{TopK: min(topK, 100), Sources: ids, MinRelevance: env.MinRelevance})
	if err != nil {
		return Result{}, err
	}
	type chunk struct {
		Text              string  `json:"text"`
		Section           string  `json:"section,omitempty"`
		Relevance         float64 `json:"relevance"`
		SemanticRelevance float64 `json:"semantic_relevance"`
		LexicalRelevance  float64 `json:"lexical_relevance"`
	}
	type perSource struct {
		Source     string  `json:"source"`
		Title      string  `json:"title"`
		Chunks     []chunk `json:"chunks"`
		ChunkCount int     `json:"chunk_count"`
	}
	bySource := map[int64]*perSource{}
	var order []int64
	for _, h := range hits {
		if sec, ok := sections[h.SourceID]; ok && h.SectionID != sec {
			continue
		}
		ps := bySource[h.SourceID]
		if ps == nil {
			ps = &perSource{Source: research.Handle(h.SourceID), Title: h.Title}
			bySource[h.SourceID] = ps
			order = append(order, h.SourceID)
		}
		if len(ps.Chunks) >= maxChunks {
			continue
		}
		ps.Chunks = append(ps.Chunks, chunk{Text: h.Text, Section: h.Section, Relevance: h.Relevance, SemanticRelevance: h.Dense, LexicalRelevance: h.Lexical})
		ps.ChunkCount = len(ps.Chunks)
	}
	out := struct {
		Query   string       `json:"query"`
		Results []*perSource `json:"results"`
		Note    string       `json:"note,omitempty"`
	}{Query: a.Query}
	var sources []Source
	for _, id := range order {
		out.Results = append(out.Results, bySource[id])
		sources = append(sources, Source{URL: research.Handle(id), Title: bySource[id].Title})
	}
	if len(out.Results) == 0 {
		out.Note = "no passage matched; try other words, list_sections, or get_full_content"
	}
	return jsonResult(out, sources)
}

func (env *ResearchEnv) getFullContent(ctx context.Context, raw json.RawMessage) (Result, error) {
	var a sourceArgs
	if err := decode(raw, &a); err != nil {
		return Result{}, err
	}
	ts, err := env.targetsOrPreloaded(a)
	if err != nil {
		return Result{}, err
	}
	type doc struct {
		Source    string `json:"source"`
		Title     string `json:"title"`
		Section   string `json:"section,omitempty"`
		Content   string `json:"content"`
		Truncated bool   `json:"truncated,omitempty"`
	}
	var docs []doc
	var sources []Source
	for _, t := range ts {
		src, err := env.Store.CorpusSource(ctx, t.id)
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", research.Handle(t.id), err)
		}
		d := doc{Source: research.Handle(t.id), Title: src.Title, Content: src.Content}
		if t.section != "" {
			sec, cands := research.MatchSection(research.SectionsOf(src), t.section)
			if sec == nil {
				return Result{}, fmt.Errorf("no section %q in %s (candidates: %s); call list_sections", t.section, d.Source, strings.Join(cands, ", "))
			}
			d.Section, d.Content = sec.Title, src.Content[sec.Start:sec.End]
		}
		if r := []rune(d.Content); len(r) > fullContentMaxChars {
			d.Content, d.Truncated = string(r[:fullContentMaxChars]), true
		}
		docs = append(docs, d)
		sources = append(sources, Source{URL: d.Source, Title: d.Title})
	}
	return jsonResult(map[string]any{"documents": docs}, sources)
}

func (env *ResearchEnv) listSections(ctx context.Context, raw json.RawMessage) (Result, error) {
	var a struct {
		sourceArgs
		IncludeTOC bool `json:"include_toc"`
	}
	if err := decode(raw, &a); err != nil {
		return Result{}, err
	}
	ts, err := env.targetsOrPreloaded(a.sourceArgs)
	if err != nil {
		return Result{}, err
	}
	type sec struct {
		ID    string `json:"id"`
		Ref   string `json:"ref"`
		Title string `json:"title"`
		Path  string `json:"path,omitempty"`
		Chars int    `json:"chars"`
	}
	type listing struct {
		Source   string `json:"source"`
		Title    string `json:"title"`
		Sections []sec  `json:"sections"`
	}
	var out []listing
	for _, t := range ts {
		src, err := env.Store.CorpusSource(ctx, t.id)
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", research.Handle(t.id), err)
		}
		l := listing{Source: research.Handle(t.id), Title: src.Title}
		for _, s := range research.SectionsOf(src) {
			if !a.IncludeTOC && s.End-s.Start < 40 && s.Title != "" {
				continue // tiny entries are TOC aliases and headings without text
			}
			l.Sections = append(l.Sections, sec{ID: s.ID, Ref: l.Source + "#section=" + s.ID, Title: s.Title, Path: s.Path, Chars: s.End - s.Start})
		}
		out = append(out, l)
	}
	return jsonResult(map[string]any{"sources": out}, nil)
}

func (env *ResearchEnv) summarizeSection(ctx context.Context, raw json.RawMessage) (Result, error) {
	var a struct {
		sourceArgs
		SectionQuery string `json:"section_query"`
		Detail       string `json:"detail"`
	}
	if err := decode(raw, &a); err != nil {
		return Result{}, err
	}
	ts, err := a.targets()
	if err != nil {
		return Result{}, err
	}
	if len(ts) != 1 {
		return Result{}, errors.New("give exactly one source")
	}
	src, err := env.Store.CorpusSource(ctx, ts[0].id)
	if err != nil {
		return Result{}, err
	}
	want := ts[0].section
	if want == "" {
		want = a.SectionQuery
	}
	text, title := src.Content, src.Title
	if want != "" {
		sec, cands := research.MatchSection(research.SectionsOf(src), want)
		if sec == nil {
			return Result{}, fmt.Errorf("no unique section matches %q (suggestions: %s); call list_sections", want, strings.Join(cands, ", "))
		}
		text, title = src.Content[sec.Start:sec.End], src.Title+" › "+sec.Title
	}
	if len(strings.TrimSpace(text)) < research.MinSectionChars {
		return Result{}, errors.New("section too short to summarize; read it with get_full_content")
	}
	sum, err := env.Summarize(ctx, title, text, a.Detail)
	if err != nil {
		return Result{}, err
	}
	h := research.Handle(src.ID)
	return jsonResult(map[string]any{"source": h, "title": title, "summary": sum}, []Source{{URL: h, Title: src.Title}})
}

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
