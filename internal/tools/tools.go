// Package tools adapts asky's capabilities (web search, URL reading, corpus
// retrieval, memory) to the LLM tool protocol. Each tool is a thin adapter:
// JSON arguments in, a call into a domain package, text out. LLM-facing
// descriptions live as embedded .md files beside the code.
package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/askygo/asky/internal/llm"
)

// Source is something a tool actually retrieved; answers may cite it.
type Source struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

// Result is what a tool returns to the model.
type Result struct {
	// Content is sent to the model as the tool message.
	Content string
	// Sources lists what was retrieved, for the answer's source list.
	Sources []Source
}

// Tool is one function the model may call.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON schema of the arguments.
	Parameters json.RawMessage
	// Guideline is appended to the system prompt under "Enabled Tool
	// Guidelines" while the tool is enabled.
	Guideline string
	// Summary renders a short human description of a call for the
	// terminal trace, e.g. `"go 1.26"` or `2 urls`. Optional.
	Summary func(args json.RawMessage) string
	Run     func(ctx context.Context, args json.RawMessage) (Result, error)
	// Untrusted marks a tool whose output is outside content (pages,
	// documents, search snippets): once the model has read it, the turn's
	// side effects are held for the user (see Provenance).
	Untrusted bool
	// TrustedLinks says the URLs in the output are trusted leads (search
	// results), which the model may fetch without spending the budget.
	TrustedLinks bool
	// Fetches lists the URLs a call would fetch, checked against the
	// turn's budget of URLs that came from no trusted source.
	Fetches func(args json.RawMessage) []string
	// Local marks a tool that reads files by path or runs programs on
	// this machine: never offered to a remote question (see Remote).
	Local bool
}

// Spec returns the model-facing description.
func (t *Tool) Spec() llm.ToolSpec {
	return llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
}

// Registry is an ordered set of tools for one turn.
type Registry struct {
	byName map[string]*Tool
	order  []string
}

// NewRegistry returns a registry holding ts.
func NewRegistry(ts ...*Tool) *Registry {
	r := &Registry{byName: map[string]*Tool{}}
	for _, t := range ts {
		r.Add(t)
	}
	return r
}

// Add registers t, replacing a tool of the same name.
func (r *Registry) Add(t *Tool) {
	if _, ok := r.byName[t.Name]; !ok {
		r.order = append(r.order, t.Name)
	}
	r.byName[t.Name] = t
}

// Remove drops the named tools; "all" drops everything.
func (r *Registry) Remove(names ...string) {
	for _, n := range names {
		if n == "all" {
			r.byName = map[string]*Tool{}
			r.order = nil
			return
		}
		if _, ok := r.byName[n]; !ok {
			continue
		}
		delete(r.byName, n)
		for i, o := range r.order {
			if o == n {
				r.order = append(r.order[:i:i], r.order[i+1:]...)
				break
			}
		}
	}
}

// Get returns the named tool.
func (r *Registry) Get(name string) (*Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Names returns tool names in registration order.
func (r *Registry) Names() []string { return append([]string(nil), r.order...) }

// Len is the number of tools.
func (r *Registry) Len() int { return len(r.order) }

// Tools returns the tools in registration order.
func (r *Registry) Tools() []*Tool {
	out := make([]*Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.byName[n])
	}
	return out
}

// Specs returns the model-facing specs.
func (r *Registry) Specs() []llm.ToolSpec {
	out := make([]llm.ToolSpec, 0, len(r.order))
	for _, t := range r.Tools() {
		out = append(out, t.Spec())
	}
	return out
}

// Clone returns an independent copy (tools are shared, the set is not).
func (r *Registry) Clone() *Registry {
	c := NewRegistry()
	for _, t := range r.Tools() {
		c.Add(t)
	}
	return c
}

// ParseToolList splits repeatable, comma-separated -off values.
func ParseToolList(values []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range values {
		for _, p := range strings.Split(v, ",") {
			p = strings.TrimSpace(p)
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

// UnknownToolError is returned when a name is not a known tool.
type UnknownToolError struct {
	Name  string
	Known []string
}

func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("unknown tool %q; known tools: %s", e.Name, strings.Join(e.Known, ", "))
}
