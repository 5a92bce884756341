package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/askygo/asky/internal/llm"
)

// LLMSummarizer summarizes with one call to client (the summarization
// model). The reply is cut to maxChars so a verbose model cannot grow the
// context it is meant to shrink.
func LLMSummarizer(client llm.Client, modelID string) Summarizer {
	return func(ctx context.Context, text string, maxChars int) (string, error) {
		req := llm.Request{Model: modelID, Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: fmt.Sprintf("Summarize the user's text in at most %d characters. Keep names, numbers, decisions and open questions. Reply with the summary only.", maxChars)},
			{Role: llm.RoleUser, Content: text},
		}}
		resp, err := client.Chat(ctx, req, nil)
		if err != nil {
			return "", err
		}
		out := strings.TrimSpace(resp.Message.Content)
		if out == "" {
			return "", fmt.Errorf("the summarization model returned nothing")
		}
		return Clip(out, maxChars), nil
	}
}
