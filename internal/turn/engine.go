package turn

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/prompts"
)

// Engine runs turns. It is safe for concurrent use by several goroutines
// (the daemon runs one turn per conversation at a time).
type Engine struct {
	Store Store
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// DefaultMaxTurns applies when neither request nor model set one.
	DefaultMaxTurns int
}

// fallbackAnswer is used when the model returns nothing twice.
const fallbackAnswer = "# No Answer\n\nThe model returned an empty response twice. Try rephrasing the question or another model (`-m`)."

// ErrNoClient is returned when a request has no model client.
var ErrNoClient = errors.New("turn: request has no model client")

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// Run executes one turn and persists it before returning. emit may be nil.
// On failure the partial turn is still persisted with status "error" or
// "interrupted" so nothing is lost, and the error is returned.
func (e *Engine) Run(ctx context.Context, req Request, emit func(Event)) (*Result, error) {
	if emit == nil {
		emit = func(Event) {}
	}
	if req.Client == nil {
		return nil, ErrNoClient
	}
	start := e.now()
	res := &Result{SessionID: req.SessionID, Notices: append([]string(nil), req.Notices...)}
	if req.Model != nil {
		res.Model = req.Model.Alias
	}
	if req.Tools == nil || req.Lean {
		req.Tools = tools.NewRegistry()
	}
	if c, ok := e.Store.(schemaChecker); ok {
		// A damaged schema would lose the answer: say so before paying.
		if err := c.CheckSchema(ctx); err != nil {
			return nil, err
		}
	}
	r := &run{e: e, req: &req, res: res, emit: emit, start: start}
	r.begin(ctx)
	if !req.Lean {
		for _, p := range req.Preloaders {
			if err := p.Preload(ctx, &req, emit); err != nil {
				_ = r.persist(ctx, err)
				return nil, err
			}
		}
		res.Notices = append(res.Notices[:0], req.Notices...)
	}
	res.Sources = append(res.Sources, req.Sources...)

	r.prov = newProvenance(&req)
	ctx = tools.WithProvenance(ctx, r.prov)
	r.maxTurns = e.maxTurns(&req)
	userMsg := r.userMessage()
	r.msgs = append(append([]llm.Message{}, req.History...), userMsg)
	r.userIdx = len(req.History)
	r.stored = []store.Message{{Role: string(llm.RoleUser), Content: userMsg.Content}}

	err := r.loop(ctx)
	res.Elapsed = e.now().Sub(start)
	res.Unverified = unverifiedCitations(res.Answer, res.Sources)
	if perr := r.persist(ctx, err); perr != nil && err == nil {
		err = &SaveError{Err: perr}
	}
	if err != nil {
		return res, err
	}
	return res, nil
}

func (e *Engine) maxTurns(req *Request) int {
	switch {
	case req.MaxTurns > 0:
		return req.MaxTurns
	case req.Model != nil && req.Model.MaxTurns > 0:
		return req.Model.MaxTurns
	case e.DefaultMaxTurns > 0:
		return e.DefaultMaxTurns
	}
	return 20
}

// run is the state of one turn in progress.
type run struct {
	e        *Engine
	req      *Request
	res      *Result
	emit     func(Event)
	start    time.Time
	maxTurns int
	msgs     []llm.Message
	// userIdx is the position of this turn's question in msgs.
	userIdx int
	stored  []store.Message
	calls   []store.LLMCall
	partial strings.Builder
	prov    *tools.Provenance
	// turnID is the pending history row begin wrote (0 if none).
	turnID int64
}

// newProvenance starts the turn's record of trusted URLs and untrusted
// reads: the question, piped input and the user's earlier messages (not
// the pages preloaded into them) are trusted; preloaded pages and
// documents are already untrusted content.
func newProvenance(req *Request) *tools.Provenance {
	trusted := []string{req.Query, req.Input}
	for _, m := range req.History {
		if m.Role == llm.RoleUser {
			typed, _, _ := strings.Cut(m.Content, preloadedHeader)
			trusted = append(trusted, typed)
		}
	}
	for _, s := range req.Sources {
		trusted = append(trusted, s.URL)
	}
	p := tools.NewProvenance(tools.DefaultUntrustedFetches, trusted...)
	if len(req.Context) > 0 {
		p.Taint("preloaded sources")
	}
	return p
}

// preloadedHeader introduces the preloaded sources in the user message.
const preloadedHeader = "\n\nPreloaded sources gathered before tool calls:\n"

func (r *run) userMessage() llm.Message {
	var b strings.Builder
	b.WriteString(r.req.Query)
	if r.req.Input != "" {
		b.WriteString("\n\n")
		b.WriteString(r.req.Input)
	}
	if r.req.Recalled != "" && !r.req.Lean {
		b.WriteString("\n\n")
		b.WriteString(r.req.Recalled)
	}
	if len(r.req.Context) > 0 && !r.req.Lean {
		b.WriteString(preloadedHeader)
		b.WriteString(strings.Join(r.req.Context, "\n\n"))
		instr := r.req.ContextInstruction
		if instr == "" {
			instr = "Use this preloaded material as a starting point, then verify with tools before citing."
		}
		b.WriteString("\n\n")
		b.WriteString(instr)
	}
	return llm.Message{Role: llm.RoleUser, Content: b.String()}
}

// promptDate is the date prompts give as absolute truth.
func (r *run) promptDate() string { return r.e.now().Format("Monday, January 02, 2006 at 15:04") }

// fillOverride fills {CURRENT_DATE} and {MAX_TURNS} in a prompt override
// (PromptOverrides).
func (r *run) fillOverride(s string) string {
	return strings.NewReplacer("{CURRENT_DATE}", r.promptDate(), "{MAX_TURNS}", strconv.Itoa(r.maxTurns)).Replace(s)
}

// systemPrompt composes the system message for a call.
func (r *run) systemPrompt(turnNo int, withTools bool) string {
	if r.req.SystemPrompt != "" {
		return r.req.SystemPrompt
	}
	date := r.promptDate()
	if r.req.Lean {
		return prompts.Must("lean", map[string]any{"Date": date, "Extra": []string(nil)})
	}
	type toolLine struct{ Name, Guideline string }
	var tl []toolLine
	if withTools {
		for _, t := range r.req.Tools.Tools() {
			g := t.Guideline
			if g == "" {
				g = firstSentence(t.Description)
			}
			tl = append(tl, toolLine{t.Name, g})
		}
	}
	s := prompts.Must("system", map[string]any{"Date": date, "MaxTurns": r.maxTurns, "Tools": tl, "Extra": r.req.SystemExtra,
		"Prefix": strings.TrimSpace(r.fillOverride(r.req.Prompts.SystemPrefix)),
		"Suffix": strings.TrimSpace(r.fillOverride(r.req.Prompts.SystemSuffix))})
	if withTools && turnNo > 0 {
		ctxSize := 0
		if r.req.Model != nil {
			ctxSize = r.req.Model.ContextSize
		}
		pct := 0.0
		if ctxSize > 0 {
			// The whole request counts: system prompt, tool schemas and
			// messages, as fit measures it.
			pct = float64(estimate(s, r.msgs, r.req.Tools.Specs())) * 100 / float64(ctxSize)
		}
		s += "\n\n" + strings.TrimSpace(prompts.Must("system_update", map[string]any{
			"ContextPct": pct, "Remaining": r.maxTurns - turnNo + 1, "MaxTurns": r.maxTurns}))
	}
	return s
}

func (r *run) loop(ctx context.Context) error {
	withTools := r.req.Tools.Len() > 0
	emptyRetried := false
	for turnNo := 1; turnNo <= r.maxTurns || !withTools; turnNo++ {
		r.emit(Event{Kind: EventModelCall, Turn: turnNo, MaxTurns: r.maxTurns})
		resp, err := r.call(ctx, r.systemPrompt(turnNo, withTools), withTools, "main")
		if err != nil {
			return err
		}
		msg := resp.Message
		if withTools && len(msg.ToolCalls) == 0 {
			if calls, rest := textToolCalls(msg.Content, r.req.Tools, turnNo); len(calls) > 0 {
				r.emit(Event{Kind: EventDebug, Text: fmt.Sprintf("read %d tool call(s) written in the reply text", len(calls))})
				msg.ToolCalls, msg.Content = calls, rest
			}
		}
		// Tool calls when no tools were offered are ignored: the text is the
		// answer, and an empty one is retried like any empty response.
		if len(msg.ToolCalls) == 0 || !withTools {
			answer := cleanAnswer(msg.Content)
			if answer == "" {
				r.emit(Event{Kind: EventTextDiscard})
				if !emptyRetried {
					emptyRetried = true
					r.emit(Event{Kind: EventDebug, Text: "empty response; retrying once"})
					r.msgs = append(r.msgs, llm.Message{Role: llm.RoleUser, Content: strings.TrimSpace(prompts.Must("empty_retry", nil))})
					turnNo--
					continue
				}
				answer = fallbackAnswer
			}
			r.finish(answer)
			r.res.Truncated = resp.FinishReason == "length" && answer != fallbackAnswer
			return nil
		}
		r.emit(Event{Kind: EventTextDiscard})
		r.msgs = append(r.msgs, msg)
		r.stored = append(r.stored, storeMessage(msg))
		for _, tc := range msg.ToolCalls {
			tm := r.runTool(ctx, tc)
			r.msgs = append(r.msgs, tm)
			r.stored = append(r.stored, storeMessage(tm))
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return r.gracefulExit(ctx)
}

// gracefulExit makes one tools-off call for a final answer after the turn
// budget is spent.
func (r *run) gracefulExit(ctx context.Context) error {
	r.emit(Event{Kind: EventNotice, Text: fmt.Sprintf("reached the limit of %d tool turns; asking for a final answer", r.maxTurns)})
	r.msgs = append(r.msgs, llm.Message{Role: llm.RoleUser, Content: "SYSTEM: Provide your final answer now based on the research above."})
	exit := strings.TrimSpace(r.fillOverride(r.req.Prompts.GracefulExit))
	if exit == "" {
		exit = strings.TrimSpace(prompts.Must("graceful_exit", nil))
	}
	sys := r.systemPrompt(0, false) + "\n\n" + exit
	for attempt := 0; attempt < 2; attempt++ {
		r.emit(Event{Kind: EventModelCall, Turn: r.maxTurns, MaxTurns: r.maxTurns})
		resp, err := r.call(ctx, sys, false, "final")
		if err != nil {
			return err
		}
		if a := cleanAnswer(resp.Message.Content); a != "" {
			r.finish(a)
			r.res.Truncated = resp.FinishReason == "length"
			return nil
		}
		r.emit(Event{Kind: EventTextDiscard})
	}
	r.finish("# No Final Answer\n\nI couldn't produce a final answer within the tool-turn limit. Try again with more turns (`-t`).")
	return nil
}

func (r *run) finish(answer string) {
	r.res.Answer = answer
	r.stored = append(r.stored, store.Message{Role: string(llm.RoleAssistant), Content: answer})
}

// call makes one model call, streaming text to the sink and recording usage.
func (r *run) call(ctx context.Context, system string, withTools bool, purpose string) (*llm.Response, error) {
	req := llm.Request{Messages: append([]llm.Message{{Role: llm.RoleSystem, Content: system}}, r.msgs...)}
	if r.req.Model != nil {
		req.Model = r.req.Model.ID
		req.Parameters = r.req.Model.Parameters
	}
	if r.req.AnswerParameters != nil {
		req.Parameters = r.req.AnswerParameters
	}
	if withTools {
		req.Tools = r.req.Tools.Specs()
	}
	if st := r.fit(ctx, system, req.Tools); st.compacted+st.dropped+st.truncated > 0 {
		r.emit(Event{Kind: EventDebug, Text: st.String()})
		req.Messages = append([]llm.Message{{Role: llm.RoleSystem, Content: system}}, r.msgs...)
	}
	r.partial.Reset()
	t0 := time.Now()
	resp, err := r.req.Client.Chat(llm.WithPurpose(ctx, llm.PurposeAnswer), req, func(d llm.Delta) {
		switch d.Kind {
		case llm.DeltaText:
			r.partial.WriteString(d.Text)
			r.emit(Event{Kind: EventText, Text: d.Text})
		case llm.DeltaReasoning:
			r.emit(Event{Kind: EventReasoning, Text: d.Text})
		case llm.DeltaToolCall:
			r.emit(Event{Kind: EventStatus, Text: "calling " + d.Text})
		}
	})
	r.res.Calls++
	if err != nil {
		return nil, err
	}
	r.res.Usage.Add(resp.Usage)
	c := store.LLMCall{Purpose: purpose, Model: req.Model, PromptTokens: resp.Usage.PromptTokens,
		CompletionTokens: resp.Usage.CompletionTokens, LatencyMS: time.Since(t0).Milliseconds()}
	if m := r.req.Model; m != nil {
		u := resp.Usage
		c.CostUSD, _ = m.Prices().Cost(u.PromptTokens, u.CompletionTokens, u.CacheReadTokens, u.CacheWriteTokens)
	}
	r.calls = append(r.calls, c)
	return resp, nil
}
