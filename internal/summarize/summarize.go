// Package summarize condenses long text with a model: one call when the
// input is short, otherwise a bounded map-reduce (at most 12 map calls over
// overlapping chunks, then one reduce call). It never runs after an answer
// has been printed; callers use it while gathering material.
package summarize

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
)

// Client is the model boundary (satisfied by llm.Client).
type Client interface {
	Chat(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (*llm.Response, error)
}

// MaxMaps bounds the map phase.
const MaxMaps = 12

// Summarizer summarizes text with one model.
type Summarizer struct {
	Client Client
	// Model is the model ID sent in requests.
	Model string
	// Parameters pass through (temperature, …).
	Parameters map[string]any
	// ContextSize of the model in tokens; the input limit is
	// ContextSize×4×0.8 chars (and at most HierarchicalMaxInputChars).
	ContextSize int
	Config      config.Summarizer
}

// Options for one summary.
type Options struct {
	// Instruction says what to focus on (a page prompt, a question).
	Instruction string
	// MaxChars caps the output (default 2000).
	MaxChars int
}

// Stats reports what a summary cost.
type Stats struct {
	Calls     int
	Maps      int
	InputUsed int // chars of input considered
}

const defaultInstruction = "Summarize the following content. Keep concrete facts, names, numbers, dates and conclusions; drop navigation, boilerplate and repetition. Write plain markdown."

// Summarize returns a summary of text no longer than opts.MaxChars.
func (s *Summarizer) Summarize(ctx context.Context, text string, opts Options) (string, Stats, error) {
	var st Stats
	if s == nil || s.Client == nil {
		return "", st, errors.New("summarize: no model client")
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", st, errors.New("summarize: nothing to summarize")
	}
	if opts.MaxChars <= 0 {
		opts.MaxChars = 2000
	}
	instr := opts.Instruction
	if instr == "" {
		instr = defaultInstruction
	}
	limit := s.inputLimit()
	text = capChars(text, limit)
	st.InputUsed = len(text)
	trigger := s.Config.HierarchicalTriggerChars
	if trigger <= 0 {
		trigger = 3200
	}
	if len(text) <= trigger {
		out, err := s.call(ctx, instr+fmt.Sprintf("\n\nKeep the summary under %d characters.", opts.MaxChars), text)
		st.Calls++
		if err != nil {
			return "", st, err
		}
		return capChars(out, opts.MaxChars), st, nil
	}
	target := s.Config.HierarchicalChunkTarget
	if target <= 0 {
		target = limit
	}
	chunks := Chunks(text, target, s.Config.HierarchicalChunkOverlap, MaxMaps)
	n := len(chunks)
	mapMax := s.Config.HierarchicalMapMaxOutput
	if mapMax <= 0 {
		mapMax = 750
	}
	mapMax = min(mapMax, max(160, (limit-n*20)/n))
	parts := make([]string, 0, n)
	for i, c := range chunks {
		if err := ctx.Err(); err != nil {
			return "", st, err
		}
		prompt := fmt.Sprintf("You are summarizing section %d of %d of a longer document. %s\nWrite concise bullet points, under %d characters.", i+1, n, instr, mapMax)
		out, err := s.call(ctx, prompt, c)
		st.Calls++
		st.Maps++
		if err != nil {
			return "", st, fmt.Errorf("summarize section %d/%d: %w", i+1, n, err)
		}
		parts = append(parts, fmt.Sprintf("Section %d:\n%s", i+1, capChars(out, mapMax)))
	}
	reduce := instr + fmt.Sprintf("\n\nThe input is a set of section summaries of one document, in order. Merge them into one coherent summary under %d characters; do not mention sections.", opts.MaxChars)
	out, err := s.call(ctx, reduce, strings.Join(parts, "\n\n"))
	st.Calls++
	if err != nil {
		return "", st, fmt.Errorf("summarize (reduce): %w", err)
	}
	return capChars(out, opts.MaxChars), st, nil
}

func (s *Summarizer) inputLimit() int {
	limit := s.Config.HierarchicalMaxInputChars
	if limit <= 0 {
		limit = 32000
	}
	if s.ContextSize > 0 {
		limit = min(limit, s.ContextSize*4*8/10)
	}
	return max(limit, 1000)
}

func (s *Summarizer) call(ctx context.Context, system, user string) (string, error) {
	resp, err := s.Client.Chat(ctx, llm.Request{Model: s.Model, Parameters: s.Parameters, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: system},
		{Role: llm.RoleUser, Content: user},
	}}, nil)
	if err != nil {
		return "", err
	}
	out := strings.TrimSpace(stripThink(resp.Message.Content))
	if out == "" {
		return "", errors.New("the model returned an empty summary")
	}
	return out, nil
}

func stripThink(s string) string {
	for _, tag := range []string{"think", "thinking", "reasoning"} {
		for {
			i := strings.Index(s, "<"+tag+">")
			if i < 0 {
				break
			}
			j := strings.Index(s[i:], "</"+tag+">")
			if j < 0 {
				s = s[:i]
				break
			}
			s = s[:i] + s[i+j+len(tag)+3:]
		}
	}
	return s
}

// Chunks splits text into pieces of about target chars at paragraph (then
// line, then space) boundaries; each piece after the first starts with the
// last overlap chars of the previous one. If more than maxChunks would
// result, the target grows so that exactly maxChunks or fewer are made.
func Chunks(text string, target, overlap, maxChunks int) []string {
	if target <= 0 {
		target = len(text)
	}
	if maxChunks > 0 && len(text) > target*maxChunks {
		target = (len(text) + maxChunks - 1) / maxChunks
	}
	if overlap < 0 || overlap >= target/2 {
		overlap = min(max(overlap, 0), target/4)
	}
	var out []string
	rest := text
	prevTail := ""
	for len(rest) > 0 {
		if maxChunks > 0 && len(out) == maxChunks-1 {
			out = append(out, prevTail+rest)
			break
		}
		if len(rest) <= target {
			out = append(out, prevTail+rest)
			break
		}
		cut := boundary(rest, target)
		piece := rest[:cut]
		out = append(out, prevTail+piece)
		rest = strings.TrimLeft(rest[cut:], "\n ")
		prevTail = ""
		if overlap > 0 {
			prevTail = tail(piece, overlap) + "\n"
		}
	}
	return out
}

// boundary picks a cut point ≤ target, preferring a paragraph break in the
// last 40% of the window, then a newline, then a space; never inside a
// UTF-8 sequence.
func boundary(s string, target int) int {
	win := s[:target]
	lo := target * 6 / 10
	for _, sep := range []string{"\n\n", "\n", ". ", " "} {
		if i := strings.LastIndex(win, sep); i >= lo {
			return i + len(sep)
		}
	}
	for target > 0 && !utf8.RuneStart(s[target]) {
		target--
	}
	if target == 0 {
		return len(s)
	}
	return target
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// capChars truncates s to at most n bytes at a rune boundary, preferring
// the last sentence or line end in the final fifth.
func capChars(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	t := s[:cut]
	if i := strings.LastIndexAny(t, ".\n"); i >= n*4/5 {
		t = t[:i+1]
	}
	return strings.TrimSpace(t)
}
