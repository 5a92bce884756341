package config

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Endpoint is an API to query directly (model listing, doctor checks).
type Endpoint struct {
	Type    string // "openai" or "anthropic"
	BaseURL string
	Key     Secret
	Headers map[string]string
}

// StatusError is a non-200 answer from an endpoint.
type StatusError struct {
	URL    string
	Status int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("GET %s: HTTP %d %s", e.URL, e.Status, http.StatusText(e.Status))
}

// FetchModels lists the model ids an endpoint reports at GET {base}/models,
// authenticating the way its type expects (Bearer for OpenAI-compatible,
// x-api-key + anthropic-version for Anthropic). The key only ever goes in
// a header, never in the URL, so errors that quote the URL are safe.
func FetchModels(ctx context.Context, hc *http.Client, ep Endpoint) ([]string, error) {
	url := strings.TrimRight(ep.BaseURL, "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range ep.Headers {
		req.Header.Set(k, v)
	}
	if ep.Type == "anthropic" {
		req.Header.Set("anthropic-version", "2023-06-01")
		if ep.Key != "" {
			req.Header.Set("x-api-key", ep.Key.Reveal())
		}
	} else if ep.Key != "" {
		req.Header.Set("Authorization", "Bearer "+ep.Key.Reveal())
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, &StatusError{URL: url, Status: resp.StatusCode}
	}
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		// Ollama's native /api/tags shape, in case base_url points there.
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(&body); err != nil {
		return nil, fmt.Errorf("GET %s: malformed model list: %w", url, err)
	}
	ids := make([]string, 0, len(body.Data)+len(body.Models))
	for _, d := range body.Data {
		ids = append(ids, d.ID)
	}
	for _, m := range body.Models {
		ids = append(ids, m.Name)
	}
	sort.Strings(ids)
	return ids, nil
}

// ListModels returns the model ids an unauthenticated OpenAI-compatible
// server (Ollama, LM Studio, llama.cpp) reports, or nil.
func ListModels(ctx context.Context, base string) []string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	ids, err := FetchModels(ctx, http.DefaultClient, Endpoint{Type: "openai", BaseURL: base})
	if err != nil {
		return nil
	}
	return ids
}
