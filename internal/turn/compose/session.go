package compose

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/askygo/asky/internal/llm"
	sess "github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn"
)

// ApplySessionDefaults fills what q does not set from the session's
// stored query defaults (model, lean, turns, system prompt, tools off,
// shortlist override, research pointer, summaries).
func ApplySessionDefaults(q *Request, s *store.Session) {
	d := s.Defaults
	if q.Model == "" {
		q.Model = d.Model
	}
	q.Lean = q.Lean || d.Lean
	if q.MaxTurns == 0 {
		q.MaxTurns = s.MaxTurns
	}
	if q.SystemPrompt == "" {
		q.SystemPrompt = d.SystemPrompt
	}
	if len(q.ToolOff) == 0 && !q.ToolsReset {
		q.ToolOff = append([]string(nil), d.ToolOff...)
	}
	if q.Shortlist == "" {
		q.Shortlist = s.ShortlistOverride
	}
	if !q.ResearchSet && d.Research != nil {
		q.Research, q.ResearchSet = *d.Research, true
	}
	q.Summarize = q.Summarize || d.Summarize
	q.ElephantMode = q.ElephantMode || s.MemoryAutoExtract
}

// prepare runs after the model is resolved and before the engine: it names
// a pending session, compacts a long session (before the request, so the
// printed answer is never delayed) and loads the conversation and -c
// context into req.
func (x *composer) prepare(ctx context.Context, st *store.Store, req *turn.Request, emit func(turn.Event)) error {
	summarize := x.sessionSummarizer(req)
	var history []llm.Message
	if ids := x.q.ContinueIDs; len(ids) > 0 {
		msgs, err := sess.ContinuationMessages(ctx, st, ids, x.q.Summarize, summarize, sess.SummaryLimits{
			Threshold: x.cfg.Summarizer.LazyThresholdChars, QueryMax: x.cfg.General.QuerySummaryMaxChars,
			AnswerMax: x.cfg.General.AnswerSummaryMaxChars})
		if err != nil {
			return err
		}
		history = append(history, msgs...)
		emit(turn.Event{Kind: turn.EventNotice, Text: "Loaded context from history " + joinIDs(ids)})
	}
	if s := x.q.Session; s != nil {
		req.SessionID = s.ID
		if s.Defaults.PendingAutoName && s.Name == "" {
			autoName(ctx, st, s, req.Query)
		}
		if !req.Lean && req.Model != nil {
			c := &sess.Compactor{Store: st, ThresholdPct: x.cfg.Session.CompactionThreshold,
				Strategy: x.cfg.Session.CompactionStrategy, Summarize: summarize}
			note, err := c.Maybe(llm.WithPurpose(ctx, llm.PurposeCompaction), s, req.Model.ContextSize, req.Query+req.Input)
			if err != nil {
				if ctx.Err() != nil {
					return err
				}
				emit(turn.Event{Kind: turn.EventNotice, Text: "session compaction failed: " + err.Error() + "; sending the full conversation"})
			} else if note != "" {
				emit(turn.Event{Kind: turn.EventNotice, Text: note})
			}
		}
		msgs, err := sess.SessionMessages(ctx, st, s)
		if err != nil {
			return err
		}
		history = append(history, msgs...)
	}
	req.History = append(history, req.History...)
	return nil
}

// autoName names a placeholder session from its first question.
func autoName(ctx context.Context, st *store.Store, s *store.Session, q string) {
	name, err := sess.RenameUnique(ctx, st, s.ID, sess.AutoName(q))
	if err != nil {
		return
	}
	s.Name = name
	s.Defaults.PendingAutoName = false
	_ = st.UpdateSessionSettings(ctx, s)
}

// sessionSummarizer returns the Summarizer for compaction and -s: the
// turn's summarization model, falling back to the turn's own model when
// the configured one does not resolve.
func (x *composer) sessionSummarizer(req *turn.Request) sess.Summarizer {
	fallback := sess.LLMSummarizer(llm.Purposed(req.Client, llm.PurposeSummary), modelID(req))
	return func(ctx context.Context, text string, maxChars int) (string, error) {
		m, c, err := x.summarizer(ctx, req)
		if err != nil {
			return fallback(ctx, text, maxChars)
		}
		return sess.LLMSummarizer(c, m.ID)(ctx, text, maxChars)
	}
}

func modelID(req *turn.Request) string {
	if req.Model == nil {
		return ""
	}
	return req.Model.ID
}

func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ", ")
}

// ChatSession is the session a daemon conversation continues: the one it
// was bound to with `/session new|child|<id>`, else the session named
// after the conversation (found or created). A binding whose session was
// deleted falls back to the default.
func ChatSession(ctx context.Context, st *store.Store, conversation string) (*store.Session, error) {
	id, err := st.ChatSessionID(ctx, conversation)
	if err != nil {
		return nil, err
	}
	if id != 0 {
		s, err := st.GetSession(ctx, id)
		if err == nil || !errors.Is(err, store.ErrNotFound) {
			return s, err
		}
	}
	return FindOrCreateSession(ctx, st, conversation)
}
