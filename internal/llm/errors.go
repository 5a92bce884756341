package llm

import (
	"errors"
	"fmt"
	"time"
)

// Kind classifies provider failures so the turn engine can retry and the
// CLI can choose an exit code and a hint without knowing wire formats.
type Kind int

// Error kinds.
const (
	KindUnknown Kind = iota
	// KindAuth: 401/403 — wrong or missing key. Never retried.
	KindAuth
	// KindRateLimit: 429 — retried honouring Retry-After.
	KindRateLimit
	// KindServer: 5xx / overloaded — retried with backoff.
	KindServer
	// KindUnreachable: connection refused, DNS failure, TLS failure.
	KindUnreachable
	// KindContextOverflow: the prompt is longer than the model's window.
	KindContextOverflow
	// KindTimeout: request deadline or stream idle gap exceeded.
	KindTimeout
	// KindTruncated: the stream ended without its terminal event.
	KindTruncated
	// KindBadResponse: malformed JSON/SSE or an error frame mid-stream.
	KindBadResponse
	// KindBadRequest: other 4xx.
	KindBadRequest
)

func (k Kind) String() string {
	switch k {
	case KindAuth:
		return "authentication failed"
	case KindRateLimit:
		return "rate limited"
	case KindServer:
		return "server error"
	case KindUnreachable:
		return "unreachable"
	case KindContextOverflow:
		return "context overflow"
	case KindTimeout:
		return "timeout"
	case KindTruncated:
		return "truncated stream"
	case KindBadResponse:
		return "malformed response"
	case KindBadRequest:
		return "bad request"
	}
	return "error"
}

// Error is a classified provider error. Its message never contains keys.
type Error struct {
	Kind     Kind
	Provider string // e.g. "openai at https://api.openai.com/v1"
	// API is the configured api name alone ("openai", "local"), for short
	// notices such as retries.
	API        string
	Status     int
	Message    string
	RetryAfter time.Duration
	// Streamed is true when some output had already been delivered; such
	// calls are never retried.
	Streamed bool
	Err      error
}

func (e *Error) Error() string {
	s := e.Kind.String()
	if e.Provider != "" {
		s = e.Provider + ": " + s
	}
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the call may be repeated.
func (e *Error) Retryable() bool {
	if e.Streamed {
		return false
	}
	switch e.Kind {
	case KindRateLimit, KindServer, KindUnreachable:
		return true
	}
	return false
}

// KindOf returns the kind of err, KindUnknown if it is not an *Error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindUnknown
}
