package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/deliver"
)

// PushToolPrefix names the push tools: push_data_<endpoint>.
const PushToolPrefix = "push_data_"

// PushDeps are what the push tools need.
type PushDeps struct {
	Endpoints map[string]config.PushEndpoint
	// Client is the plain client: endpoints are the user's own config.
	Client    *http.Client
	UserAgent string
	Getenv    func(string) string
	// Query fills ${query}; Model, called when the tool runs, ${model}.
	Query string
	Model func() string
	Now   func() time.Time
}

// pushSpecials are the field placeholders asky fills itself.
var pushSpecials = map[string]bool{"query": true, "answer": true, "timestamp": true, "model": true}

// PushTools returns one push_data_<name> tool for each [push_data.NAME]
// endpoint with enabled = true (asky-behavior.md §4.2). Each ${param}
// field other than ${query} ${answer} ${timestamp} ${model} is a required
// string argument. The tools send to the user's own endpoints, so they
// are never offered to remote questions (Local) and refuse once the turn
// has read untrusted content: a page must not make asky send data.
func PushTools(d *PushDeps) []*Tool {
	names := make([]string, 0, len(d.Endpoints))
	for n, ep := range d.Endpoints {
		if ep.Enabled != nil && *ep.Enabled {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := make([]*Tool, 0, len(names))
	for _, name := range names {
		out = append(out, pushTool(d, name))
	}
	return out
}

func pushTool(d *PushDeps, name string) *Tool {
	ep := d.Endpoints[name]
	var params []string
	seen := map[string]bool{}
	for _, v := range ep.Fields {
		s, _ := v.(string)
		if !strings.HasPrefix(s, "${") || !strings.HasSuffix(s, "}") {
			continue
		}
		if p := s[2 : len(s)-1]; p != "" && !pushSpecials[p] && !seen[p] {
			seen[p] = true
			params = append(params, p)
		}
	}
	sort.Strings(params)
	props := map[string]any{}
	for _, p := range params {
		props[p] = map[string]any{"type": "string", "description": "Value for the " + p + " field."}
	}
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": append([]string{}, params...)})
	desc := strings.TrimSpace(ep.Description)
	if desc == "" {
		desc = fmt.Sprintf("Send data to the user's %q endpoint (push_data).", name)
	}
	return &Tool{
		Name:        PushToolPrefix + name,
		Description: desc,
		Parameters:  schema,
		Guideline:   fmt.Sprintf("Call only when the user asks to send or push something to %s.", name),
		Local:       true,
		Run: func(ctx context.Context, raw json.RawMessage) (Result, error) {
			if src := ProvenanceFrom(ctx).Tainted(); src != "" {
				return Result{}, fmt.Errorf("not pushing to %s: this turn read untrusted content (%s); the user can send it with --push-data %s", name, src, name)
			}
			var args map[string]any
			if err := decode(raw, &args); err != nil {
				return Result{}, err
			}
			spec := deliver.PushSpec{Endpoint: name, Params: map[string]string{}}
			for k, v := range args {
				if s, ok := v.(string); ok {
					spec.Params[k] = s
				} else if v != nil {
					spec.Params[k] = fmt.Sprint(v)
				}
			}
			for _, p := range params {
				if _, ok := spec.Params[p]; !ok {
					return Result{}, fmt.Errorf("missing %q", p)
				}
			}
			now := time.Now
			if d.Now != nil {
				now = d.Now
			}
			a := deliver.Answer{Query: d.Query, Timestamp: now()}
			if d.Model != nil {
				a.Model = d.Model()
			}
			client := d.Client
			if client == nil {
				client = http.DefaultClient
			}
			status, err := deliver.Push(ctx, client, d.UserAgent, d.Endpoints, spec, a, d.Getenv)
			if err != nil {
				return Result{}, err
			}
			return jsonResult(map[string]any{"status": "sent", "endpoint": name, "response": status}, nil)
		},
	}
}
