// Package provider builds an llm.Client for a resolved model: the OpenAI
// chat-completions or Anthropic Messages client, wrapped with the retry
// policy.
package provider

import (
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
)

// Options tune the client.
type Options struct {
	// Timeout bounds a whole request; IdleTimeout the gap between chunks.
	Timeout     time.Duration
	IdleTimeout time.Duration
	UserAgent   string
	// MaxRetries, InitialBackoff and MaxBackoff drive the retry policy.
	MaxRetries     int
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// OnRetry is told about each retry (shown with -v).
	OnRetry func(attempt int, wait time.Duration, err error)
	// Trace receives full request/response payloads with keys redacted (-vv).
	Trace io.Writer
}

// New returns a client for m using hc (the plain endpoint client).
func New(m *config.ResolvedModel, hc *http.Client, o Options) (llm.Client, error) {
	return nil, errors.New("provider: not implemented yet")
}
