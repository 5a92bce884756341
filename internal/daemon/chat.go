package daemon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/turn"
)

// MaxChatMessage bounds one incoming chat message; a longer one is refused
// with a reply rather than sent to the model.
const MaxChatMessage = 64 << 10

// StatusInterval is the least time between two progress updates of one
// chat answer (the original's 2 s: chat clients show each edit).
const StatusInterval = 2 * time.Second

// ChatMessage is one text message from a chat transport, already
// authorized by the transport.
type ChatMessage struct {
	// Conversation is the session name: xmpp:<bare-jid>, telegram:<chat>,
	// telegram:<chat>:<topic> for a forum topic…
	Conversation string
	Text         string
}

// ChatOutput is where a chat answer goes. Status is called with the
// first progress line at once and then at most every StatusInterval;
// Final is called exactly once with the answer or an error text.
type ChatOutput interface {
	Status(ctx context.Context, text string)
	Final(ctx context.Context, text string, failed bool)
}

// CommandHandler runs command-looking chat text (`/session …`, `-H`,
// `\preset`…) with the remote policy. The daemon command injects it so
// transports never import the CLI.
type CommandHandler interface {
	Command(ctx context.Context, conversation, text string) (CommandResult, error)
}

// CommandResult is what a command came to: a reply, or (Handled false)
// a question to ask after all, e.g. a preset's expansion or `-L words`.
type CommandResult struct {
	Handled bool
	Reply   string
	// Question, Model and Lean describe the ask when not Handled.
	Question string
	Model    string
	Lean     bool
	// Confirm, with Handled, makes Reply a yes/no question: the chat's
	// next message answers it.
	Confirm *Confirmation
	// NewSession, with Handled, says the chat now continues another
	// session (`/session new`, a switch), whose overrides apply from now
	// on; a State that keeps overrides by chat drops them.
	NewSession bool
}

// Chat routes chat messages: commands to the CommandHandler, anything else
// to the Service as a question, with throttled progress. Every chat
// transport uses it, so routing and limits are the same everywhere.
type Chat struct {
	Service  *Service
	Commands CommandHandler
	// Uploads stores and ingests documents sent by URL; nil refuses them.
	// Its client and loopback allowance also fetch voice and images.
	Uploads *Uploads
	// Media answers voice and image messages; nil refuses them.
	Media *Media
	// CommandPrefix is [xmpp] command_prefix: a first word that marks a
	// command, as "/asky" always does ("/asky history list").
	CommandPrefix string
	// AnswerTranscripts answers a voice message's transcript at once
	// ([daemon] confirm_transcripts = false); by default the chat first
	// shows it and asks for a yes.
	AnswerTranscripts bool
	// ConfirmTTL is how long a yes/no question stays open; zero uses
	// DefaultConfirmTTL.
	ConfirmTTL time.Duration
	// ModelParameters returns the configured [models.ALIAS] parameters,
	// so the note on a cut answer names the limit key the model uses
	// (max_tokens or max_completion_tokens); nil says max_tokens.
	ModelParameters func(alias string) map[string]any
	// Interval overrides StatusInterval (tests).
	Interval time.Duration
	Now      func() time.Time

	// State keeps the chats' open yes/no questions and their sessions'
	// inline overrides (StoreState: across restarts); nil keeps them in
	// memory, by chat, for the process.
	State ChatState

	mem memState
	mu  sync.Mutex
	// actions are the in-memory Yes of open questions, by conversation.
	actions map[string]pendingAction
}

// Handle answers m through out. It returns when the answer was given.
func (c *Chat) Handle(ctx context.Context, m ChatMessage, out ChatOutput) {
	text := strings.TrimSpace(m.Text)
	if text == "" {
		return
	}
	if len(text) > MaxChatMessage {
		out.Final(ctx, fmt.Sprintf("Error: the message is too long (%d KB; the limit is %d KB).", len(text)>>10, MaxChatMessage>>10), true)
		return
	}
	if o, found, err := parseOverride(text); found {
		if err != nil {
			out.Final(ctx, "Error: "+err.Error(), true)
			return
		}
		if err := c.setOverride(ctx, m.Conversation, o); err != nil {
			out.Final(ctx, "Error: the override was not kept: "+err.Error(), true)
			return
		}
		out.Final(ctx, fmt.Sprintf("Override set for this chat's session: %s (/session new starts without it).", o), false)
		return
	}
	if c.answerPending(ctx, m.Conversation, text, out) {
		return
	}
	// "/asky" (or [xmpp] command_prefix) leads a command line, parsed as
	// the CLI parses one: words that are no command are a question, as
	// `asky what is …` is in the shell. A room addresses the bot so too.
	if first, rest, _ := strings.Cut(text, " "); strings.EqualFold(first, "/asky") || (c.CommandPrefix != "" && strings.EqualFold(first, c.CommandPrefix)) {
		rest = strings.TrimSpace(rest)
		if rest == "" || LooksLikeCommand(rest) {
			text = strings.TrimSpace("/asky " + rest)
		} else {
			text = rest
		}
	}
	if w := strings.Fields(strings.ToLower(text)); w[0] == "transcript" && (len(w) == 1 || slices.Contains([]string{"list", "show", "use", "clear"}, w[1])) {
		// The original's transcript list/show/use/clear: this version
		// keeps no transcript store, so say so rather than "blocked".
		out.Final(ctx, TranscriptsUnsupported, true)
		return
	}
	var cmd *CommandResult
	if c.Commands != nil && LooksLikeCommand(text) {
		res, err := c.Commands.Command(ctx, m.Conversation, text)
		switch {
		case err != nil:
			out.Final(ctx, "Error: "+err.Error(), true)
			return
		case res.Handled:
			if err := c.commandDone(ctx, m.Conversation, res); err != nil {
				out.Final(ctx, "Error: "+err.Error(), true)
				return
			}
			out.Final(ctx, res.Reply, false)
			return
		}
		cmd = &res
	}
	a, err := c.newAsk(ctx, m.Conversation, text)
	if err != nil {
		out.Final(ctx, "Error: "+err.Error(), true)
		return
	}
	if res := cmd; res != nil {
		a.Question, a.Lean = res.Question, res.Lean
		if res.Model != "" {
			a.Model = res.Model
		}
		if strings.TrimSpace(a.Question) == "" {
			out.Final(ctx, "Error: no question after the flags.", true)
			return
		}
	}
	c.ask(ctx, a, out)
}

// commandDone applies what a handled command changed for the chat: a
// session switch drops the overrides of the session left, and a yes/no
// question stays open for the chat's next message.
func (c *Chat) commandDone(ctx context.Context, conversation string, res CommandResult) error {
	if sc, ok := c.state().(sessionChanger); ok && res.NewSession {
		sc.SessionChanged(conversation)
	}
	if res.Confirm != nil {
		if _, err := c.setPending(ctx, conversation, *res.Confirm); err != nil {
			return fmt.Errorf("could not keep the question open: %w", err)
		}
	}
	return nil
}

// Command runs text as a command for a caller outside the chat's flow
// (an XMPP ad-hoc command) and returns its reply, with the effects Handle
// gives it. confirmed answers the yes/no question the command asks
// (`/session clear`) with yes at once, the caller having asked already;
// else the question stays open for the chat's next message. Text the
// handler takes for a question is refused: the caller offers commands.
func (c *Chat) Command(ctx context.Context, conversation, text string, confirmed bool) (reply string, failed bool) {
	if c.Commands == nil {
		return "Error: this daemon runs no commands.", true
	}
	res, err := c.Commands.Command(ctx, conversation, text)
	switch {
	case err != nil:
		return "Error: " + err.Error(), true
	case !res.Handled:
		return fmt.Sprintf("Error: %q is not a command.", text), true
	case confirmed && res.Confirm != nil && res.Confirm.Yes != nil:
		if sc, ok := c.state().(sessionChanger); ok && res.NewSession {
			sc.SessionChanged(conversation)
		}
		var got finalText
		res.Confirm.Yes(ctx, &got)
		return got.text, got.failed
	}
	if err := c.commandDone(ctx, conversation, res); err != nil {
		return "Error: " + err.Error(), true
	}
	return res.Reply, false
}

// finalText is a ChatOutput keeping the final text only.
type finalText struct {
	text   string
	failed bool
}

func (*finalText) Status(context.Context, string) {}
func (f *finalText) Final(_ context.Context, text string, failed bool) {
	f.text, f.failed = text, failed
}

// AskQuestion asks question in the conversation as it is, never as a
// command (an XMPP ad-hoc query form), with the session's overrides;
// model, when set, and lean choose how it is answered.
func (c *Chat) AskQuestion(ctx context.Context, conversation, question, model string, lean bool, out ChatOutput) {
	a, err := c.newAsk(ctx, conversation, question)
	if err != nil {
		out.Final(ctx, "Error: "+err.Error(), true)
		return
	}
	if model != "" {
		a.Model = model
	}
	a.Lean = lean
	c.ask(ctx, a, out)
}

// newAsk is a question of the conversation with its session's overrides.
func (c *Chat) newAsk(ctx context.Context, conversation, question string) (Ask, error) {
	o, err := c.state().Override(ctx, conversation)
	if err != nil {
		return Ask{}, err
	}
	return Ask{Conversation: conversation, Question: question, Model: o.Model, SummarizationModel: o.SummarizationModel, Prompts: o.Prompts}, nil
}

// setOverride merges o into the overrides of the conversation's session.
func (c *Chat) setOverride(ctx context.Context, conversation string, o Override) error {
	cur, err := c.state().Override(ctx, conversation)
	if err != nil {
		return err
	}
	return c.state().SetOverride(ctx, conversation, cur.merge(o))
}

// askText asks question in the conversation with its session's overrides.
func (c *Chat) askText(ctx context.Context, conversation, question string, out ChatOutput) {
	a, err := c.newAsk(ctx, conversation, question)
	if err != nil {
		out.Final(ctx, "Error: "+err.Error(), true)
		return
	}
	c.ask(ctx, a, out)
}

// Upload stores and ingests the documents at urls and acknowledges them;
// a single voice or image URL (an XMPP OOB attachment) is answered as
// Voice or Image. It reports whether anything got in, so a question sent
// with the files is not asked about files that were refused.
func (c *Chat) Upload(ctx context.Context, conversation string, urls []string, out ChatOutput) (ok bool) {
	if len(urls) == 1 {
		switch MediaKind(urls[0]) {
		case "voice":
			c.Voice(ctx, conversation, urls[0], out)
			return true
		case "image":
			c.Image(ctx, conversation, urls[0], "", out)
			return true
		}
	}
	// .toml files are settings for the session (as a ```toml block),
	// the rest documents.
	var lines []string
	failed := true // unless a file is in the corpus or a setting kept
	var docs []string
	for _, u := range urls {
		if !IsOverrideURL(u) {
			docs = append(docs, u)
			continue
		}
		line, err := c.overrideFrom(ctx, conversation, u)
		if err != nil {
			line = "✗ " + uploadName(u) + ": " + err.Error()
		} else {
			failed = false
		}
		lines = append(lines, line)
	}
	if len(docs) > 0 {
		defer c.Service.Busy().Begin()() // ingesting: the user waits for it
		reply := c.Uploads.Handle(ctx, conversation, docs)
		for _, l := range strings.Split(reply, "\n") {
			if strings.HasPrefix(l, "✓ ") || strings.HasPrefix(l, "= ") {
				failed = false
			}
		}
		lines = append(lines, reply)
	}
	// Said even when the daemon is stopping (the ingest was cut short).
	out.Final(context.WithoutCancel(ctx), strings.Join(lines, "\n"), failed)
	return !failed
}

func (c *Chat) ask(ctx context.Context, a Ask, out ChatOutput) {
	interval := c.Interval
	if interval <= 0 {
		interval = StatusInterval
	}
	now := c.Now
	if now == nil {
		now = time.Now
	}
	p := &progress{out: out, ctx: ctx, interval: interval, now: now}
	if c.Service.Waiting(a.Conversation) > 0 {
		p.show("⏳ Queued behind the previous question…")
	} else {
		p.show("⏳ Thinking…")
	}
	a.Events = p.event
	res, err := c.Service.Ask(ctx, a)
	switch {
	case errors.Is(err, ErrBusy):
		out.Final(ctx, "Busy: earlier questions in this conversation are still waiting; ask again when they are answered.", true)
	case err != nil && ctx.Err() != nil:
		out.Final(context.WithoutCancel(ctx), "Interrupted: the daemon is stopping; the question was saved as interrupted. Ask again later.", true)
	case err != nil:
		out.Final(ctx, "Error: "+err.Error(), true)
	case strings.TrimSpace(res.Answer) == "":
		out.Final(ctx, "(empty answer)", false)
	case res.Truncated:
		var params map[string]any
		if c.ModelParameters != nil && res.Model != "" {
			params = c.ModelParameters(res.Model)
		}
		out.Final(ctx, res.Answer+"\n\n"+TruncatedNote(res.Model, params), false)
	default:
		out.Final(ctx, res.Answer, false)
	}
}

// TruncatedNote is the line a chat answer cut at the model's output limit
// ends with, in the CLI's words: a cut is easy to take for the end of the
// answer, and whoever runs the daemon can raise the limit. params are the
// model's configured parameters: the key named is the one they use.
func TruncatedNote(model string, params map[string]any) string {
	where := "the model's parameters"
	if model != "" {
		where = "[models." + model + "] parameters"
	}
	return "⚠️ The answer was cut at the model's output limit; set a higher " + llm.MaxTokensKey(params) + " in " + where + "."
}

// progress throttles status lines from turn events.
type progress struct {
	out      ChatOutput
	ctx      context.Context
	interval time.Duration
	now      func() time.Time
	last     time.Time
	chars    int
}

func (p *progress) show(s string) {
	p.last = p.now()
	p.out.Status(p.ctx, s)
}

func (p *progress) event(e turn.Event) {
	var line string
	switch e.Kind {
	case turn.EventToolStart:
		line = "🔧 " + e.Tool
		if e.Summary != "" {
			line += ": " + e.Summary
		}
	case turn.EventModelCall:
		if e.Turn > 1 {
			line = fmt.Sprintf("⏳ Thinking (turn %d of %d)…", e.Turn, e.MaxTurns)
		}
	case turn.EventText:
		p.chars += len(e.Text)
		line = fmt.Sprintf("✍ Writing the answer (%d chars so far)…", p.chars)
	case turn.EventTextDiscard:
		p.chars = 0
	}
	if line == "" || p.now().Sub(p.last) < p.interval {
		return
	}
	p.show(line)
}

// LooksLikeCommand reports text routed to the command parser: a first
// token starting with "-" or "\" (preset), or one of the original's
// command words; memory, corpus and prompts only before one of their
// verbs, so "memory of …" stays a question (the original asks those).
func LooksLikeCommand(text string) bool {
	words := strings.Fields(strings.ToLower(text))
	if len(words) == 0 {
		return false
	}
	first := words[0]
	if strings.HasPrefix(first, "-") || strings.HasPrefix(first, `\`) {
		return true
	}
	switch first {
	case "/session", "/h", "/help", "/asky", "history", "session", "transcript":
		return true
	case "memory", "corpus", "prompts":
		return len(words) > 1 && slices.Contains(groupVerbs[first], words[1])
	}
	return false
}

// groupVerbs are the CLI's verbs of the grouped commands a chat may
// start with a bare word.
var groupVerbs = map[string][]string{
	"memory":  {"list", "add", "delete", "confirm", "clear", "search", "edit", "export", "import", "reindex"},
	"corpus":  {"ingest", "list", "query", "sections", "summarize", "remove", "eval"},
	"prompts": {"list"},
}
