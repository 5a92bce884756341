package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
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
