package turn

// Running the tool calls the model asks for: admission, panics and errors
// turned into results the model can read, untrusted-output framing and
// source tracking.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/tools"
)

// runTool executes one call; every failure becomes a tool result the model
// can read, never an aborted turn.
func (r *run) runTool(ctx context.Context, tc llm.ToolCall) llm.Message {
	rec := ToolCallRecord{Name: tc.Name, Arguments: jsonOrString(tc.Arguments)}
	t, ok := r.req.Tools.Get(tc.Name)
	var content string
	summary := ""
	if ok && t.Summary != nil && json.Valid([]byte(tc.Arguments)) {
		summary = t.Summary(json.RawMessage(tc.Arguments))
	}
	r.emit(Event{Kind: EventToolStart, Tool: tc.Name, Summary: summary, Text: tc.Arguments})
	t0 := time.Now()
	switch {
	case !ok:
		rec.Error = fmt.Sprintf("unknown tool %q; available tools: %s", tc.Name, strings.Join(r.req.Tools.Names(), ", "))
	case !json.Valid([]byte(orEmptyObject(tc.Arguments))):
		rec.Error = "arguments are not valid JSON: " + truncate(tc.Arguments, 200)
	default:
		args := json.RawMessage(orEmptyObject(tc.Arguments))
		if err := r.admit(t, args); err != nil {
			rec.Error = err.Error()
			break
		}
		out, err := safeRun(ctx, t, args)
		if err != nil {
			rec.Error = err.Error()
		} else {
			rec.OK = true
			content = out.Content
			r.addSources(out.Sources)
			r.track(t, out)
		}
	}
	for _, n := range r.prov.Drain() {
		r.res.Notices = append(r.res.Notices, n)
		r.emit(Event{Kind: EventNotice, Text: n})
	}
	rec.Elapsed = time.Since(t0)
	if !rec.OK {
		content = "Error: " + rec.Error
	}
	r.res.ToolCalls = append(r.res.ToolCalls, rec)
	r.emit(Event{Kind: EventToolEnd, Tool: tc.Name, Summary: summary, OK: rec.OK, Err: rec.Error, Elapsed: rec.Elapsed})
	return llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID, Name: tc.Name, Content: frame(tc.Name, content)}
}

// admit checks the URLs a call would fetch against the turn's budget of
// URLs no trusted source gave.
func (r *run) admit(t *tools.Tool, args json.RawMessage) error {
	if t.Fetches == nil {
		return nil
	}
	for _, u := range t.Fetches(args) {
		if err := r.prov.Admit(u); err != nil {
			return err
		}
	}
	return nil
}

// track records what a successful call brought in: trusted links (search
// results) and whether the model has now read untrusted content.
func (r *run) track(t *tools.Tool, out tools.Result) {
	if t.TrustedLinks {
		r.prov.Learn(out.Content)
	}
	if t.Untrusted {
		src := t.Name
		if len(out.Sources) > 0 && out.Sources[0].URL != "" {
			src += " " + out.Sources[0].URL
		}
		r.prov.Taint(src)
	}
}

func safeRun(ctx context.Context, t *tools.Tool, args json.RawMessage) (res tools.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("tool %s crashed: %v", t.Name, p)
		}
	}()
	return t.Run(ctx, args)
}

func (r *run) addSources(src []tools.Source) {
	seen := map[string]bool{}
	for _, s := range r.res.Sources {
		seen[s.URL] = true
	}
	for _, s := range src {
		if s.URL != "" && !seen[s.URL] {
			seen[s.URL] = true
			r.res.Sources = append(r.res.Sources, s)
		}
	}
}

// frame wraps tool output as untrusted data with a random boundary the
// content cannot forge.
func frame(tool, content string) string {
	var nb [6]byte
	_, _ = rand.Read(nb[:])
	nonce := hex.EncodeToString(nb[:])
	content = strings.ReplaceAll(content, nonce, "")
	return fmt.Sprintf("<tool_result tool=%q trust=\"untrusted\" boundary=%q>\n%s\n</tool_result boundary=%q>", tool, nonce, content, nonce)
}
