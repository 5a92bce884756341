package daemon

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
)

// OpenAIModel calls an OpenAI-compatible endpoint for the media kinds the
// chat engine does not cover: /audio/transcriptions (multipart) and a
// one-shot chat completion with an image content part.
type OpenAIModel struct {
	// BaseURL is the API root (…/v1); Model the model id there.
	BaseURL, Key, Model string
	Headers             map[string]string
	Client              *http.Client
}

// Transcribe sends audio to /audio/transcriptions and returns its text.
func (m OpenAIModel) Transcribe(ctx context.Context, name string, audio []byte) (string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("model", m.Model)
	_ = mw.WriteField("response_format", "json")
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		return "", err
	}
	fw.Write(audio)
	if err := mw.Close(); err != nil {
		return "", err
	}
	var out struct {
		Text string `json:"text"`
	}
	if err := m.post(ctx, "/audio/transcriptions", mw.FormDataContentType(), &body, &out); err != nil {
		return "", err
	}
	return out.Text, nil
}

// describePrompt asks the vision model for what the chat model needs to
// answer the user's question about the image.
const describePrompt = "Describe this image in detail, including any text in it, so that someone who cannot see it can answer this question about it: "

// Describe asks the model about image with one chat completion.
func (m OpenAIModel) Describe(ctx context.Context, mimeType string, image []byte, question string) (string, error) {
	type part struct {
		Type     string            `json:"type"`
		Text     string            `json:"text,omitempty"`
		ImageURL map[string]string `json:"image_url,omitempty"`
	}
	req := map[string]any{
		"model":  m.Model,
		"stream": false,
		"messages": []map[string]any{{"role": "user", "content": []part{
			{Type: "text", Text: describePrompt + question},
			{Type: "image_url", ImageURL: map[string]string{"url": "data:" + mimeType + ";base64," + base64.StdEncoding.EncodeToString(image)}},
		}}},
	}
	b, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	var out struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := m.post(ctx, "/chat/completions", "application/json", bytes.NewReader(b), &out); err != nil {
		return "", err
	}
	if len(out.Choices) == 0 || strings.TrimSpace(out.Choices[0].Message.Content) == "" {
		return "", errors.New("the model returned no description")
	}
	return out.Choices[0].Message.Content, nil
}

// post sends one request and decodes the JSON answer into out; an error
// status becomes an error with the provider's message.
func (m OpenAIModel) post(ctx context.Context, endpoint, contentType string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(m.BaseURL, "/")+endpoint, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	if m.Key != "" {
		req.Header.Set("Authorization", "Bearer "+m.Key)
	}
	for k, v := range m.Headers {
		req.Header.Set(k, v)
	}
	client := m.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		msg := strings.TrimSpace(string(raw))
		if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
			msg = e.Error.Message
		}
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		return fmt.Errorf("%s %s: %s", endpoint, resp.Status, msg)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: unreadable answer: %v", endpoint, err)
	}
	return nil
}
