package tools

// The research tools that read ingested sources: relevant chunks, full
// content, the section outline and section summaries.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/askygo/asky/internal/research"
)

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
	// Three candidates per wanted chunk (asky-behavior.md §5.4), so that
	// near-duplicates can be skipped and still leave max_chunks.
	topK := 3 * maxChunks * max(1, len(ids))
	if len(sections) > 0 {
		topK *= 4 // section filtering happens after retrieval
	}
	hits, searchErr := env.Index.Search(ctx, a.Query, research.SearchOptions{TopK: min(topK, 150), Sources: ids, MinRelevance: env.MinRelevance})
	if searchErr != nil && ctx.Err() != nil {
		return Result{}, searchErr
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
		// ContentPreview is the start of a source no passage matched
		// (or of every source when retrieval failed, with Fallback).
		ContentPreview string `json:"content_preview,omitempty"`
		Fallback       bool   `json:"fallback,omitempty"`
		Error          string `json:"error,omitempty"`
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
		if len(ps.Chunks) >= maxChunks || nearDuplicateOf(h.Text, ps.Chunks, func(c chunk) string { return c.Text }) {
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
	// A source without a match, or every source when retrieval failed,
	// still shows the model its beginning (asky-behavior.md §4.3): 2000
	// chars, or 3000 marked fallback.
	previewChars := previewNoMatch
	if searchErr != nil {
		previewChars = previewFallback
		out.Note = "retrieval failed (" + searchErr.Error() + "); showing the start of each source instead"
	}
	for _, id := range ids {
		// Sources searched by default (the preloaded corpus) only get
		// previews when nothing matched at all: one weaker source among
		// many is not worth 2000 chars.
		if bySource[id] != nil || (len(ts) == 0 && len(order) > 0) {
			continue
		}
		ps := &perSource{Source: research.Handle(id), Chunks: []chunk{}, Fallback: searchErr != nil}
		if src, err := env.Store.CorpusSource(ctx, id); err != nil {
			ps.Error = err.Error()
		} else {
			ps.Title = src.Title
			text := src.Content
			if sec, ok := sections[id]; ok {
				if s, _ := research.MatchSection(research.SectionsOf(src), sec); s != nil {
					text = src.Content[s.Start:s.End]
				}
			}
			ps.ContentPreview = truncateRunes(strings.TrimSpace(text), previewChars)
			sources = append(sources, Source{URL: ps.Source, Title: ps.Title})
		}
		out.Results = append(out.Results, ps)
	}
	if len(order) == 0 && searchErr == nil {
		out.Note = "no passage matched; each source's content_preview shows its start; try other words, list_sections, or get_full_content"
	}
	return jsonResult(out, sources)
}

// nearDuplicateOf reports whether text nearly repeats an item of sel.
func nearDuplicateOf[T any](text string, sel []T, textOf func(T) string) bool {
	for _, c := range sel {
		if research.NearDuplicate(text, textOf(c)) {
			return true
		}
	}
	return false
}

// Preview sizes of get_relevant_content for a source without matches and
// when retrieval failed.
const (
	previewNoMatch  = 2000
	previewFallback = 3000
)

func truncateRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
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
