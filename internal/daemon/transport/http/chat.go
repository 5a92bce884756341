package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/turn"
)

// ConversationHeader names the conversation; it wins over "user".
const ConversationHeader = "X-Asky-Conversation"

// chatRequest is the part of an OpenAI chat completion request asky uses.
// What asky cannot honour is refused (chatOptions); sampling parameters
// apply to the answer (samplingFields), and what the model's API cannot
// take is named in IgnoredHeader with the fields in unapplied; other
// fields are ignored.
type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Stream   bool          `json:"stream"`
	User     string        `json:"user"`
	chatOptions
	samplingFields
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text returns the message text: content is a string or a list of parts
// of which only text parts count.
func (m chatMessage) text() (string, error) {
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return "", fmt.Errorf("message content must be a string or a list of parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// toAsk turns the messages into an Ask: the last message (a user one) is
// the question, earlier user/assistant messages the history and
// system/developer messages the client's instructions.
func (c *chatRequest) toAsk() (daemon.Ask, error) {
	a := daemon.Ask{Model: c.Model}
	if len(c.Messages) == 0 {
		return a, fmt.Errorf(`"messages" is empty`)
	}
	last := c.Messages[len(c.Messages)-1]
	if last.Role != "user" {
		return a, fmt.Errorf("the last message must be the user's question, got role %q", last.Role)
	}
	q, err := last.text()
	if err != nil {
		return a, err
	}
	if a.Question = strings.TrimSpace(q); a.Question == "" {
		return a, fmt.Errorf("the last user message is empty")
	}
	var instr []string
	for _, m := range c.Messages[:len(c.Messages)-1] {
		t, err := m.text()
		if err != nil {
			return a, err
		}
		switch m.Role {
		case "system", "developer":
			instr = append(instr, t)
		case "user":
			a.History = append(a.History, llm.Message{Role: llm.RoleUser, Content: t})
		case "assistant":
			a.History = append(a.History, llm.Message{Role: llm.RoleAssistant, Content: t})
		default:
			// Tool messages belong to the client's own tool loop, which
			// asky does not take part in.
		}
	}
	a.Instructions = strings.Join(instr, "\n\n")
	return a, nil
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	var raw json.RawMessage
	if !decode(w, json.NewDecoder(r.Body), &raw) {
		return
	}
	var req chatRequest
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &req); err != nil {
		bodyError(err).write(w)
		return
	}
	if e := req.check(); e != nil {
		e.write(w)
		return
	}
	sampling, e := req.sampling()
	if e != nil {
		e.write(w)
		return
	}
	_ = json.Unmarshal(raw, &fields)
	a, err := req.toAsk()
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	a.Sampling = sampling
	name := strings.TrimSpace(req.User)
	if h := strings.TrimSpace(r.Header.Get(ConversationHeader)); h != "" {
		name = h
	}
	if !validConversation(w, name) {
		return
	}
	a.Conversation = conversationKey(name)
	id := "chatcmpl-" + randomID()
	created := s.o.Now().Unix()
	if !req.Stream {
		var ns notSent
		a.Events = ns.event
		res, err := s.o.Service.Ask(r.Context(), a)
		ns.setHeader(w, fields)
		if unsaved(w, res, err) {
			err = nil
		}
		if err != nil {
			writeTurnError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "object": "chat.completion", "created": created, "model": res.Model,
			"choices": []any{map[string]any{
				"index": 0, "finish_reason": finishReason(res),
				"message": map[string]any{"role": "assistant", "content": res.Answer},
			}},
			"usage": usage(res),
			"asky":  askyFields(res),
		})
		return
	}
	sse := &sseWriter{w: w, rc: http.NewResponseController(w), id: id, created: created, model: s.modelName(req.Model),
		includeUsage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage, fields: fields}
	a.Events = sse.event
	res, err := s.o.Service.Ask(r.Context(), a)
	sse.finish(res, err)
}

// sseWriter streams a turn as OpenAI chat.completion.chunk events. The
// headers are only sent with the first text, so an ask that fails before
// answering (busy, unknown model) still gets a proper status code.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	id      string
	created int64
	model   string
	// includeUsage sends usage in a last chunk with no choices
	// (stream_options.include_usage), as OpenAI does; without it no
	// chunk carries usage.
	includeUsage bool
	// fields are the request's fields and notSent the sampling
	// parameters the model's API could not take: IgnoredHeader, set
	// with the first byte.
	fields  map[string]json.RawMessage
	notSent []string

	mu      sync.Mutex
	started bool
	// fresh counts bytes streamed since the last discarded stretch (text
	// that turned out to accompany tool calls).
	fresh int
	dead  bool
}

func (s *sseWriter) event(ev turn.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch ev.Kind {
	case turn.EventText:
		if ev.Text != "" {
			s.delta(ev.Text)
			s.fresh += len(ev.Text)
		}
	case turn.EventTextDiscard:
		s.fresh = 0
	case turn.EventIgnoredParameters:
		s.notSent = append(s.notSent, ev.Text)
	}
}

func (s *sseWriter) begin() {
	if s.started {
		return
	}
	s.started = true
	setIgnored(s.w, s.fields, s.notSent)
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
	s.chunk(map[string]any{"role": "assistant", "content": ""}, nil)
}

func (s *sseWriter) delta(text string) {
	s.begin()
	s.chunk(map[string]any{"content": text}, nil)
}

// chunk writes one chat.completion.chunk with one choice.
func (s *sseWriter) chunk(delta map[string]any, finish any, extra ...map[string]any) {
	s.send([]any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}, extra...)
}

// send writes one data: event; a client that stops reading for 30 s is
// dropped (the turn itself still completes and is saved).
func (s *sseWriter) send(choices []any, extra ...map[string]any) {
	m := map[string]any{"id": s.id, "object": "chat.completion.chunk", "created": s.created, "model": s.model, "choices": choices}
	for _, e := range extra {
		for k, v := range e {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m)
	s.write("data: " + string(b) + "\n\n")
}

func (s *sseWriter) write(line string) {
	if s.dead {
		return
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := s.w.Write([]byte(line)); err != nil {
		s.dead = true
		return
	}
	_ = s.rc.Flush()
}

func (s *sseWriter) finish(res *turn.Result, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil && !s.started {
		setIgnored(s.w, s.fields, s.notSent)
		writeTurnError(s.w, err)
		return
	}
	if err != nil {
		// Mid-stream: the status is already 200, so the error travels as
		// an event, as OpenAI's own streams do.
		b, _ := json.Marshal(turnError(err).body())
		s.write("data: " + string(b) + "\n\n")
		s.write("data: [DONE]\n\n")
		return
	}
	if res.Model != "" {
		s.model = res.Model
	}
	if s.fresh == 0 && res.Answer != "" {
		// Nothing of the final answer streamed (it was cleaned up or
		// came as a fallback): send it whole.
		s.delta(res.Answer)
	}
	s.begin()
	s.chunk(map[string]any{}, finishReason(res), map[string]any{"asky": askyFields(res)})
	if s.includeUsage {
		s.send([]any{}, map[string]any{"usage": usage(res)})
	}
	s.write("data: [DONE]\n\n")
}

// notSent collects the sampling parameters a non-streamed turn reported
// the model's API could not take (events may come from other goroutines).
type notSent struct {
	mu    sync.Mutex
	names []string
}

func (n *notSent) event(ev turn.Event) {
	if ev.Kind == turn.EventIgnoredParameters {
		n.mu.Lock()
		n.names = append(n.names, ev.Text)
		n.mu.Unlock()
	}
}

// setHeader sets IgnoredHeader for them and the request's fields.
func (n *notSent) setHeader(w http.ResponseWriter, fields map[string]json.RawMessage) {
	n.mu.Lock()
	defer n.mu.Unlock()
	setIgnored(w, fields, n.names)
}

// setIgnored sets IgnoredHeader when anything the request set was not
// applied: notSent are the comma-separated names the turn reported.
func setIgnored(w http.ResponseWriter, fields map[string]json.RawMessage, notSent []string) {
	var names []string
	for _, n := range notSent {
		names = append(names, strings.Split(n, ", ")...)
	}
	if ignored := ignoredParameters(fields, names...); ignored != "" {
		w.Header().Set(IgnoredHeader, ignored)
	}
}

// modelName is the alias a streamed answer reports before the turn has
// resolved it: the requested one, or the default.
func (s *Server) modelName(requested string) string {
	if requested != "" || s.o.Models == nil {
		return requested
	}
	for _, m := range s.o.Models() {
		if m.Default {
			return m.Alias
		}
	}
	return ""
}

// finishReason is OpenAI's: "length" when the answer stopped at the
// output limit (max_tokens), else "stop".
func finishReason(res *turn.Result) string {
	if res.Truncated {
		return "length"
	}
	return "stop"
}

func usage(res *turn.Result) map[string]int {
	return map[string]int{
		"prompt_tokens":     res.Usage.PromptTokens,
		"completion_tokens": res.Usage.CompletionTokens,
		"total_tokens":      res.Usage.PromptTokens + res.Usage.CompletionTokens,
	}
}

// askyFields are asky's additions to an OpenAI response: where the turn
// was saved and what it read.
func askyFields(res *turn.Result) map[string]any {
	srcs := []map[string]string{}
	for _, s := range res.Sources {
		srcs = append(srcs, map[string]string{"url": s.URL, "title": s.Title})
	}
	var sid any
	if res.SessionID != 0 {
		sid = res.SessionID
	}
	return map[string]any{"history_id": res.HistoryID, "session_id": sid, "sources": srcs}
}

func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
