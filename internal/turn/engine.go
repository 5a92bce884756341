package turn

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
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

// turnBeginner is a Store that can save the question before the turn runs.
type turnBeginner interface {
	BeginTurn(ctx context.Context, t *store.Turn) (int64, error)
}

// begin saves the question as a pending turn before any model call, so a
// kill -9 or a lost terminal leaves it in history. A failure here is not
// fatal: the final save reports it, after the answer is shown.
func (r *run) begin(ctx context.Context) {
	b, ok := r.e.Store.(turnBeginner)
	if !ok {
		return
	}
	t := &store.Turn{SessionID: r.req.SessionID, CreatedAt: r.start, Query: r.req.Query, Input: r.req.Input, Model: r.res.Model}
	if _, err := b.BeginTurn(ctx, t); err != nil {
		r.emit(Event{Kind: EventDebug, Text: "could not save the question before asking: " + err.Error()})
		return
	}
	r.turnID = t.ID
}

// turnFailer is a Store that can mark a pending turn as failed.
type turnFailer interface {
	FailTurn(ctx context.Context, id int64, msg string) error
}

// schemaChecker is a Store that can verify its schema before a turn.
type schemaChecker interface {
	CheckSchema(ctx context.Context) error
}

// SaveError means the turn ran to the end but could not be saved: the
// Result returned with it is complete, and its answer should still reach
// the user (it was paid for).
type SaveError struct{ Err error }

func (e *SaveError) Error() string {
	msg := e.Err.Error()
	if !strings.HasPrefix(msg, "save turn") {
		msg = "save turn: " + msg
	}
	return msg + " (the answer above was not saved to history)"
}

func (e *SaveError) Unwrap() error { return e.Err }

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

// systemPrompt composes the system message for a call.
func (r *run) systemPrompt(turnNo int, withTools bool) string {
	if r.req.SystemPrompt != "" {
		return r.req.SystemPrompt
	}
	date := r.e.now().Format("Monday, January 02, 2006 at 15:04")
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
	s := prompts.Must("system", map[string]any{"Date": date, "MaxTurns": r.maxTurns, "Tools": tl, "Extra": r.req.SystemExtra})
	if withTools && turnNo > 0 {
		ctxSize := 0
		if r.req.Model != nil {
			ctxSize = r.req.Model.ContextSize
		}
		pct := 0
		if ctxSize > 0 {
			pct = llm.EstimateMessages(r.msgs) * 100 / ctxSize
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
	sys := r.systemPrompt(0, false) + "\n\n" + strings.TrimSpace(prompts.Must("graceful_exit", nil))
	for attempt := 0; attempt < 2; attempt++ {
		r.emit(Event{Kind: EventModelCall, Turn: r.maxTurns, MaxTurns: r.maxTurns})
		resp, err := r.call(ctx, sys, false, "final")
		if err != nil {
			return err
		}
		if a := cleanAnswer(resp.Message.Content); a != "" {
			r.finish(a)
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
	if withTools {
		req.Tools = r.req.Tools.Specs()
	}
	if st := r.fit(ctx, system, req.Tools); st.compacted+st.dropped+st.truncated > 0 {
		r.emit(Event{Kind: EventDebug, Text: st.String()})
		req.Messages = append([]llm.Message{{Role: llm.RoleSystem, Content: system}}, r.msgs...)
	}
	r.partial.Reset()
	t0 := time.Now()
	resp, err := r.req.Client.Chat(ctx, req, func(d llm.Delta) {
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
		c.CostUSD = (float64(c.PromptTokens)*m.PriceIn + float64(c.CompletionTokens)*m.PriceOut) / 1e6
	}
	r.calls = append(r.calls, c)
	return resp, nil
}

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

// persist stores the turn. It uses a context detached from cancellation so
// an interrupted turn is still recorded (as interrupted, never as a normal
// answer).
func (r *run) persist(ctx context.Context, runErr error) error {
	if r.e.Store == nil {
		return nil
	}
	t := &store.Turn{
		ID: r.turnID, SessionID: r.req.SessionID, CreatedAt: r.start, Query: r.req.Query, Input: r.req.Input, Answer: r.res.Answer,
		ElapsedMS: r.res.Elapsed.Milliseconds(), Messages: r.stored, Calls: r.calls, Status: store.StatusComplete,
	}
	if r.req.Model != nil {
		t.Model = r.req.Model.Alias
	}
	for _, s := range r.res.Sources {
		t.Sources = append(t.Sources, store.Source{URL: s.URL, Title: s.Title})
	}
	if runErr != nil {
		t.Status, t.Error = store.StatusError, runErr.Error()
		if errors.Is(runErr, context.Canceled) {
			t.Status, t.Error = store.StatusInterrupted, "interrupted"
		}
		if t.Answer == "" {
			t.Answer = r.partial.String()
		}
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	id, err := r.e.Store.SaveTurn(sctx, t)
	if err != nil {
		if f, ok := r.e.Store.(turnFailer); ok && r.turnID != 0 {
			_ = f.FailTurn(sctx, r.turnID, "the answer could not be saved: "+err.Error())
		}
		return err
	}
	r.res.HistoryID = id
	return nil
}

func storeMessage(m llm.Message) store.Message {
	sm := store.Message{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name}
	if len(m.ToolCalls) > 0 {
		b, _ := json.Marshal(m.ToolCalls)
		sm.ToolCalls = string(b)
	}
	return sm
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

var thinkRe = regexp.MustCompile(`(?s)<(think|thinking|reasoning)>.*?</(think|thinking|reasoning)>`)

// cleanAnswer strips leaked reasoning tags and surrounding whitespace.
func cleanAnswer(s string) string {
	s = thinkRe.ReplaceAllString(s, "")
	return strings.TrimSpace(s)
}

var urlRe = regexp.MustCompile(`https?://[^\s<>()\[\]"'` + "`" + `]+`)

// unverifiedCitations lists URLs in the answer that no tool or preloader
// retrieved, so the CLI can flag them.
func unverifiedCitations(answer string, sources []tools.Source) []string {
	known := map[string]bool{}
	for _, s := range sources {
		known[normalizeCite(s.URL)] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, u := range urlRe.FindAllString(answer, -1) {
		u = strings.TrimRight(u, ".,;:!?*_")
		n := normalizeCite(u)
		if known[n] || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, u)
	}
	return out
}

func normalizeCite(u string) string {
	u = strings.TrimSuffix(strings.ToLower(u), "/")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	u = strings.TrimPrefix(u, "www.")
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	return u
}

func jsonOrString(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

func orEmptyObject(s string) string {
	if strings.TrimSpace(s) == "" {
		return "{}"
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	if i := strings.IndexByte(s, '\n'); i > 0 {
		return s[:i]
	}
	return s
}
