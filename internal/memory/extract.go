package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/prompts"
)

// MaxExtracted bounds the facts one elephant-mode turn may save.
const MaxExtracted = 5

// Extracted is one fact elephant mode saved.
type Extracted struct {
	Text   string
	Result SaveResult
}

// Extract is elephant mode (-em): after a turn has been answered, one call
// to client asks for durable facts the user stated in their message, and
// each is saved into sessionID through Save's deduplication. Only the
// user's own words are sent: facts never come from the answer or from what
// tools fetched, so a page cannot plant a memory.
func (s *Service) Extract(ctx context.Context, client llm.Client, modelID, userMessage string, sessionID int64) ([]Extracted, error) {
	if sessionID == 0 {
		return nil, errors.New("elephant mode needs a session")
	}
	msg := strings.TrimSpace(userMessage)
	if msg == "" {
		return nil, nil
	}
	if r := []rune(msg); len(r) > 4000 {
		msg = string(r[:4000])
	}
	sys, err := prompts.Render("memory_extract", map[string]any{"Max": MaxExtracted})
	if err != nil {
		return nil, err
	}
	resp, err := client.Chat(ctx, llm.Request{Model: modelID, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: sys},
		{Role: llm.RoleUser, Content: "User message:\n" + msg},
	}}, nil)
	if err != nil {
		return nil, fmt.Errorf("memory extraction: %w", err)
	}
	facts, err := ParseFacts(resp.Message.Content)
	if err != nil {
		return nil, err
	}
	var out []Extracted
	for _, f := range facts {
		res, err := s.Save(ctx, f, []string{"elephant"}, sessionID)
		if errors.Is(err, ErrEmpty) || errors.Is(err, ErrTooLong) {
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, Extracted{Text: f, Result: res})
	}
	return out, nil
}

// ParseFacts reads the model's JSON array of facts, tolerating a code
// fence or words around it and objects with a "fact" or "memory" field.
func ParseFacts(reply string) ([]string, error) {
	i, j := strings.IndexByte(reply, '['), strings.LastIndexByte(reply, ']')
	if i < 0 || j < i {
		return nil, fmt.Errorf("memory extraction: the model did not reply with a JSON array: %q", OneLine(reply, 80))
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(reply[i:j+1]), &raw); err != nil {
		return nil, fmt.Errorf("memory extraction: %w", err)
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range raw {
		var s string
		if json.Unmarshal(r, &s) != nil {
			var o struct{ Fact, Memory, Text string }
			if json.Unmarshal(r, &o) != nil {
				continue
			}
			s = o.Fact + o.Memory + o.Text
		}
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
		if len(out) == MaxExtracted {
			break
		}
	}
	return out, nil
}
