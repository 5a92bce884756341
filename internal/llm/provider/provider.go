// Package provider builds an llm.Client for a resolved model: the OpenAI
// chat-completions or Anthropic Messages client, wrapped with the retry
// policy.
package provider

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/llm/anthropic"
	"github.com/askygo/asky/internal/llm/openai"
	"github.com/askygo/asky/internal/llm/wire"
)

// Options tune the client.
type Options struct {
	// Timeout bounds the wait for a response to start; IdleTimeout the gap
	// between streamed chunks. Zero means the defaults (60 s each).
	Timeout     time.Duration
	IdleTimeout time.Duration
	UserAgent   string
	// MaxRetries, InitialBackoff, MaxBackoff and RetryBudget (total wait)
	// drive the retry policy. Zero means the defaults (3 retries, 1 s,
	// 30 s, 30 s); MaxRetries < 0 disables retries, RetryBudget < 0
	// removes the bound on the total wait.
	MaxRetries     int
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	RetryBudget    time.Duration
	// OnRetry is told about each retry (see llm.RetryNotice).
	OnRetry func(attempt int, wait time.Duration, err error)
	// Sleep replaces the retry wait (tests).
	Sleep func(ctx context.Context, d time.Duration) error
	// Trace receives full request/response payloads with keys redacted (-vv).
	Trace io.Writer
}

// Defaults used for zero Options fields.
const (
	DefaultTimeout        = 60 * time.Second
	DefaultIdleTimeout    = 60 * time.Second
	DefaultMaxRetries     = 3
	DefaultInitialBackoff = time.Second
	DefaultMaxBackoff     = 30 * time.Second
	DefaultRetryBudget    = 30 * time.Second
	DefaultUserAgent      = "asky-go"
)

// New returns a client for m using hc (the plain endpoint client).
func New(m *config.ResolvedModel, hc *http.Client, o Options) (llm.Client, error) {
	ep := &wire.Endpoint{
		Name:        m.APIName,
		BaseURL:     m.BaseURL,
		HTTP:        hc,
		Headers:     m.Headers,
		Secret:      m.Key.Reveal(),
		UserAgent:   or(o.UserAgent, DefaultUserAgent),
		Timeout:     or(o.Timeout, DefaultTimeout),
		IdleTimeout: or(o.IdleTimeout, DefaultIdleTimeout),
		Trace:       o.Trace,
	}
	var c llm.Client
	switch m.Type {
	case "openai", "":
		c = openai.New(ep)
	case "anthropic":
		c = anthropic.New(ep)
	default:
		return nil, fmt.Errorf("api %q has type %q; supported types are \"openai\" and \"anthropic\"", m.APIName, m.Type)
	}
	retries := or(o.MaxRetries, DefaultMaxRetries)
	if retries < 0 {
		return c, nil
	}
	return llm.WithRetry(c, llm.RetryPolicy{
		MaxRetries: retries,
		Initial:    or(o.InitialBackoff, DefaultInitialBackoff),
		Max:        or(o.MaxBackoff, DefaultMaxBackoff),
		Budget:     max(or(o.RetryBudget, DefaultRetryBudget), 0),
		OnRetry:    o.OnRetry,
		Sleep:      o.Sleep,
	}), nil
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// ApplySampling returns m's configured parameters with one request's
// sampling override s laid over them in m's wire format, and the fields
// of s that m's API cannot take (left out, never sent). An error is a
// value m's API refuses (an *llm.ParamError).
func ApplySampling(m *config.ResolvedModel, s llm.Sampling) (map[string]any, []string, error) {
	switch m.Type {
	case "openai", "":
		return openai.ApplySampling(m.Parameters, s), nil, nil
	case "anthropic":
		return anthropic.ApplySampling(m.Parameters, s)
	}
	return nil, nil, fmt.Errorf("api %q has type %q; supported types are \"openai\" and \"anthropic\"", m.APIName, m.Type)
}
