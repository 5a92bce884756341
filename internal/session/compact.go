package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/store"
)

// Compaction strategies ([session] compaction_strategy).
const (
	StrategyConcat = "summary_concat"
	StrategyLLM    = "llm_summary"
)

// Compactor keeps a session's context under a share of the model window by
// replacing older turns with a summary. The turns themselves stay in the
// database (history shows them); only what is sent to the model changes.
// It runs before a request, so it never delays printing an answer.
type Compactor struct {
	Store ContextStore
	// ThresholdPct of the model's context window triggers compaction.
	ThresholdPct int
	Strategy     string
	// Summarize is used by the llm_summary strategy.
	Summarize Summarizer
	// Keep is how many recent turns stay verbatim (default 2).
	Keep int
}

// Maybe compacts sess when its context plus the pending question reaches
// the threshold of contextSize tokens (chars/4). It updates sess and
// returns a user-facing notice, or "" when nothing was done. On error
// (including Ctrl-C) the database is unchanged.
func (c *Compactor) Maybe(ctx context.Context, sess *store.Session, contextSize int, pending string) (string, error) {
	if contextSize <= 0 {
		return "", nil
	}
	pct := c.ThresholdPct
	if pct <= 0 || pct > 100 {
		pct = 80
	}
	turns, err := c.Store.SessionTurns(ctx, sess.ID, sess.CompactedThrough)
	if err != nil {
		return "", err
	}
	est := llm.EstimateTokens(sess.CompactedSummary) + llm.EstimateTokens(pending)
	for _, t := range turns {
		est += llm.EstimateTokens(t.Query) + llm.EstimateTokens(t.Input) + llm.EstimateTokens(t.Answer) + 8
	}
	if est*100 < contextSize*pct {
		return "", nil
	}
	keep := c.Keep
	if keep <= 0 {
		keep = 2
	}
	if len(turns) <= keep {
		return "", nil
	}
	old := turns[:len(turns)-keep]
	var summary string
	switch c.Strategy {
	case StrategyLLM:
		if c.Summarize == nil {
			return "", fmt.Errorf("compaction: no summarizer configured")
		}
		var b strings.Builder
		if sess.CompactedSummary != "" {
			b.WriteString("Earlier summary:\n" + sess.CompactedSummary + "\n\n")
		}
		for _, t := range old {
			fmt.Fprintf(&b, "User: %s\nAssistant: %s\n\n", t.Query, t.Answer)
		}
		if summary, err = c.Summarize(ctx, b.String(), 4000); err != nil {
			return "", fmt.Errorf("compaction: %w", err)
		}
	default:
		lines := []string{}
		if sess.CompactedSummary != "" {
			lines = append(lines, sess.CompactedSummary)
		}
		for _, t := range old {
			qs, as, err := c.Store.TurnSummaries(ctx, t.ID)
			if err != nil {
				return "", err
			}
			lines = append(lines, "User: "+orClip(qs, t.Query, 200), "Assistant: "+orClip(as, t.Answer, 400))
		}
		summary = strings.Join(lines, "\n")
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	through := old[len(old)-1].ID
	if err := c.Store.SetCompaction(ctx, sess.ID, summary, sess.CompactedThrough, through); err != nil {
		if errors.Is(err, store.ErrCompactionRace) {
			fresh, gerr := c.Store.GetSession(ctx, sess.ID)
			if gerr != nil {
				return "", gerr
			}
			sess.CompactedSummary, sess.CompactedThrough = fresh.CompactedSummary, fresh.CompactedThrough
			return "session context was compacted by another shell", nil
		}
		return "", err
	}
	sess.CompactedSummary, sess.CompactedThrough = summary, through
	noun := "turns"
	if len(old) == 1 {
		noun = "turn"
	}
	return fmt.Sprintf("session context compacted: %d earlier %s summarized (still in history)", len(old), noun), nil
}

// orClip returns sum when set, else text cut to n characters on a rune
// boundary.
func orClip(sum, text string, n int) string {
	if sum != "" {
		return sum
	}
	return Clip(strings.Join(strings.Fields(text), " "), n)
}

// Clip cuts s to at most n runes, adding … when cut.
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
