package turn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/askygo/asky/internal/llm"
)

// In-turn context budget (asky-behavior.md §5.3). Before every model call
// the request is measured; past the threshold, phase 1 replaces long
// URL-keyed tool results by summaries (Request.CompactTool). Only when the
// request would still exceed the context (less a margin for the answer)
// does phase 2 drop the oldest messages, and a last resort truncate the
// longest one: unlike the original, which drops down to the threshold,
// nothing is lost that still fits. The model never receives a request
// larger than its context. Only what is sent shrinks: the turn is
// persisted in full.
const (
	defaultCompactionPct = 80
	// compactMinChars: shorter tool results are left alone (§5.2).
	compactMinChars = 500
	compactedMark   = "[COMPACTED]"
	// answerMarginPct of the context is what a request may use once
	// summaries were not enough; the rest is left for the answer.
	answerMarginPct = 95
)

// compactable are the tools whose results are keyed by URL or source
// handle and can be replaced by a summary of each page.
var compactable = map[string]bool{"get_url_content": true, "get_full_content": true}

// fitStats says what fit did, for the -v trace.
type fitStats struct {
	before, after                 int
	compacted, dropped, truncated int
}

// estimate is the size in tokens of a request with system prompt sys.
func estimate(sys string, msgs []llm.Message, specs []llm.ToolSpec) int {
	n := llm.EstimateTokens(sys) + 4 + llm.EstimateMessages(msgs)
	if len(specs) > 0 {
		b, _ := json.Marshal(specs)
		n += llm.EstimateTokens(string(b))
	}
	return n
}

// fit shrinks r.msgs until a call with sys and specs fits the model's
// context budget. It returns what it did (zero when nothing was needed).
func (r *run) fit(ctx context.Context, sys string, specs []llm.ToolSpec) fitStats {
	var st fitStats
	if r.req.Model == nil || r.req.Model.ContextSize <= 0 {
		return st
	}
	limit := r.req.Model.ContextSize
	pct := r.req.CompactionPct
	if pct <= 0 || pct > 100 {
		pct = defaultCompactionPct
	}
	threshold := limit * pct / 100
	size := func() int { return estimate(sys, r.msgs, specs) }
	st.before = size()
	st.after = st.before
	if st.before <= threshold {
		return st
	}
	// The system prompt, the tool descriptions and the question are never
	// shrunk: when they alone exceed the context, nothing dropped here
	// would make the request fit, so it goes out whole and the provider's
	// context-overflow error says what to do.
	if r.userIdx < len(r.msgs) && estimate(sys, r.msgs[r.userIdx:r.userIdx+1], specs) > limit {
		return st
	}
	// Phase 1: summaries of long URL-keyed tool results, oldest first.
	if r.req.CompactTool != nil {
		for i := range r.msgs {
			if size() <= threshold || ctx.Err() != nil {
				break
			}
			m := r.msgs[i]
			inner, ok := unframe(m.Content)
			if m.Role != llm.RoleTool || !compactable[m.Name] || !ok || len(inner) <= compactMinChars || strings.Contains(inner, compactedMark) {
				continue
			}
			short, ok := r.req.CompactTool(ctx, m.Name, inner)
			if ok && len(short) < len(inner) {
				r.msgs[i].Content = frame(m.Name, short)
				st.compacted++
			}
		}
	}
	// Phase 2: drop the oldest messages. The question of this turn and
	// the latest exchange stay; a tool call is dropped with its results so
	// the conversation stays well-formed.
	hard := limit * answerMarginPct / 100
	for size() > hard {
		from, to := r.oldestUnit()
		if from < 0 {
			break
		}
		r.msgs = append(r.msgs[:from], r.msgs[to:]...)
		if from < r.userIdx {
			r.userIdx -= to - from
		}
		st.dropped += to - from
	}
	// Last resort: truncate the longest message other than the question
	// until the hard limit holds. A question that alone overflows is left
	// to the provider's context-overflow error, which says what to do.
	for size() > hard {
		i := longest(r.msgs, r.userIdx)
		if i < 0 {
			break
		}
		over := (size() - hard + 64) * 4
		m := r.msgs[i]
		inner, framed := unframe(m.Content)
		if !framed {
			inner = m.Content
		}
		keep := max(0, len(inner)-over)
		cut := truncateUTF8(inner, keep) + "\n[truncated to fit the model's context]"
		if framed {
			cut = frame(m.Name, cut)
		}
		if len(cut) >= len(m.Content) {
			break
		}
		r.msgs[i].Content = cut
		st.truncated++
	}
	st.after = size()
	return st
}

// oldestUnit returns the range [from, to) of the oldest droppable messages:
// earlier conversation first, then this turn's oldest tool exchange
// (assistant message with its tool results). The latest exchange and the
// question are never dropped. from < 0 means nothing can go.
func (r *run) oldestUnit() (int, int) {
	if r.userIdx > 0 {
		// Earlier conversation goes up to its next user message, so what
		// remains still starts with the user and tool results never lose
		// their call.
		to := 1
		for to < r.userIdx && r.msgs[to].Role != llm.RoleUser {
			to++
		}
		return 0, to
	}
	// Exchanges after the question: find the first assistant message and
	// its trailing tool results; keep the last exchange.
	start := r.userIdx + 1
	if start >= len(r.msgs) {
		return -1, -1
	}
	end := start + 1
	for end < len(r.msgs) && r.msgs[end].Role == llm.RoleTool {
		end++
	}
	if end >= len(r.msgs) {
		return -1, -1 // the only exchange left is the latest
	}
	return start, end
}

// longest is the index of the longest message but skip, ignoring short ones.
func longest(msgs []llm.Message, skip int) int {
	best, n := -1, 200
	for i, m := range msgs {
		if i != skip && len(m.Content) > n {
			best, n = i, len(m.Content)
		}
	}
	return best
}

// unframe returns the content inside a tool-result frame.
func unframe(s string) (string, bool) {
	if !strings.HasPrefix(s, "<tool_result ") {
		return s, false
	}
	nl := strings.IndexByte(s, '\n')
	end := strings.LastIndex(s, "\n</tool_result ")
	if nl < 0 || end < nl {
		return s, false
	}
	return s[nl+1 : end], true
}

func truncateUTF8(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

func (st fitStats) String() string {
	return fmt.Sprintf("context %d → %d tokens: %d tool result(s) summarized, %d message(s) dropped, %d truncated",
		st.before, st.after, st.compacted, st.dropped, st.truncated)
}
