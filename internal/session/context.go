package session

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/store"
)

// Summarizer condenses text to at most maxChars characters (an LLM call in
// production, a fake in tests).
type Summarizer func(ctx context.Context, text string, maxChars int) (string, error)

// ContextStore is what building a conversation context needs.
type ContextStore interface {
	SessionTurns(ctx context.Context, id, after int64) ([]*store.Turn, error)
	GetTurn(ctx context.Context, id int64) (*store.Turn, error)
	ResolveHistory(ctx context.Context, sel store.HistorySelector) (store.Resolution, error)
	TurnSummaries(ctx context.Context, id int64) (query, answer string, err error)
	SetTurnSummaries(ctx context.Context, id int64, query, answer string) error
	SetCompaction(ctx context.Context, id int64, summary string, prev, through int64) error
	GetSession(ctx context.Context, id int64) (*store.Session, error)
}

// summaryIntro introduces a compacted summary in the conversation.
const summaryIntro = "Summary of our earlier conversation in this session:\n\n"

// SessionMessages returns the conversation a session sends with its next
// question: the compacted summary (if any) followed by every later turn.
// Turns that failed without an answer are skipped.
func SessionMessages(ctx context.Context, st ContextStore, sess *store.Session) ([]llm.Message, error) {
	turns, err := st.SessionTurns(ctx, sess.ID, sess.CompactedThrough)
	if err != nil {
		return nil, err
	}
	var msgs []llm.Message
	if sess.CompactedSummary != "" {
		msgs = append(msgs,
			llm.Message{Role: llm.RoleUser, Content: summaryIntro + sess.CompactedSummary},
			llm.Message{Role: llm.RoleAssistant, Content: "Noted; I will use this summary as context."})
	}
	for _, t := range turns {
		msgs = appendTurn(msgs, withInput(t.Query, t.Input), t.Answer)
	}
	return msgs, nil
}

// withInput is the question as the model saw it: piped input follows it,
// so a later "and how do I fix that?" still has the log it is about.
func withInput(q, input string) string {
	if input == "" {
		return q
	}
	return q + "\n\n" + input
}

func appendTurn(msgs []llm.Message, q, a string) []llm.Message {
	if strings.TrimSpace(a) == "" {
		return msgs
	}
	return append(msgs, llm.Message{Role: llm.RoleUser, Content: q}, llm.Message{Role: llm.RoleAssistant, Content: a})
}

var continueSel = regexp.MustCompile(`^(~?\d+(-~?\d+)?)(,(~?\d+(-~?\d+)?))*$`)

// IsHistorySelector reports whether s has the shape of a history selector
// (42, ~1, 3-5, ~1-~3, or a comma list): for -c, such a first word is the
// selector, anything else starts the question.
func IsHistorySelector(s string) bool { return continueSel.MatchString(strings.TrimSpace(s)) }

// MaxContinueTurns bounds how many turns -c loads as context.
const MaxContinueTurns = 50

// ResolveTurnIDs expands a history selector (the same forms as
// `history show`) into turn ids, oldest first.
func ResolveTurnIDs(ctx context.Context, st ContextStore, sel string) ([]int64, error) {
	parsed, err := store.ParseHistorySelector(sel)
	if err != nil || !IsHistorySelector(sel) {
		return nil, &HistorySelectorError{Sel: sel}
	}
	res, err := st.ResolveHistory(ctx, parsed)
	if err != nil {
		return nil, err
	}
	if len(res.Missing) > 0 {
		return nil, fmt.Errorf("history %s does not exist: %w", res.Missing[0], store.ErrNotFound)
	}
	if len(res.IDs) > MaxContinueTurns {
		return nil, &HistorySelectorError{Sel: sel, TooMany: len(res.IDs)}
	}
	ids := append([]int64(nil), res.IDs...)
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids, nil
}

// HistorySelectorError is a malformed history selector (usage error).
type HistorySelectorError struct {
	Sel     string
	TooMany int
}

func (e *HistorySelectorError) Error() string {
	if e.TooMany > 0 {
		return fmt.Sprintf("%s selects %d turns; at most %d can be loaded as context", e.Sel, e.TooMany, MaxContinueTurns)
	}
	return fmt.Sprintf("invalid history selector %q", e.Sel)
}

// Hint names the accepted forms.
func (e *HistorySelectorError) Hint() string {
	if e.TooMany > 0 {
		return "select fewer turns, e.g. ~1-~5"
	}
	return "use " + store.SelectorForms + "; see `asky history list`"
}

// SummaryLimits are what -c -s summarizes: a question or answer longer
// than Threshold ([summarizer] lazy_threshold_chars) is replaced by a
// summary of at most QueryMax / AnswerMax characters ([general]
// query_summary_max_chars / answer_summary_max_chars). Zero means the
// original's default (2000, 100, 2000).
type SummaryLimits struct{ Threshold, QueryMax, AnswerMax int }

func (l SummaryLimits) orDefaults() SummaryLimits {
	return SummaryLimits{Threshold: cmp.Or(l.Threshold, 2000), QueryMax: cmp.Or(l.QueryMax, 100), AnswerMax: cmp.Or(l.AnswerMax, 2000)}
}

// ContinuationMessages loads the selected turns as context. With
// summaries, long questions and answers are replaced by their cached
// summaries, computed with sum and cached when missing.
func ContinuationMessages(ctx context.Context, st ContextStore, ids []int64, summaries bool, sum Summarizer, lim SummaryLimits) ([]llm.Message, error) {
	lim = lim.orDefaults()
	var msgs []llm.Message
	for _, id := range ids {
		t, err := st.GetTurn(ctx, id)
		if err != nil {
			return nil, err
		}
		q, a := withInput(t.Query, t.Input), t.Answer
		if summaries {
			q = t.Query // summaries save tokens: piped input stays out
			qs, as, err := st.TurnSummaries(ctx, id)
			if err != nil {
				return nil, err
			}
			changed := false
			if qs == "" && len(q) > lim.Threshold && sum != nil {
				if qs, err = sum(ctx, q, lim.QueryMax); err != nil {
					return nil, fmt.Errorf("summarize history %d: %w", id, err)
				}
				changed = true
			}
			if as == "" && len(a) > lim.Threshold && sum != nil {
				if as, err = sum(ctx, a, lim.AnswerMax); err != nil {
					return nil, fmt.Errorf("summarize history %d: %w", id, err)
				}
				changed = true
			}
			if changed {
				if err := st.SetTurnSummaries(ctx, id, qs, as); err != nil {
					return nil, err
				}
			}
			if qs != "" {
				q = qs
			}
			if as != "" {
				a = as
			}
		}
		msgs = appendTurn(msgs, q, a)
	}
	return msgs, nil
}
