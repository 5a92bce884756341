package wire

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/askygo/asky/internal/llm"
)

// statusError classifies a non-2xx response. The message is the provider's
// own (from its JSON error body), truncated and redacted; raw HTML is
// never shown.
func (e *Endpoint) statusError(resp *http.Response, body []byte) *llm.Error {
	msg := ProviderMessage(body)
	code := resp.StatusCode
	var le *llm.Error
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		le = e.Errorf(llm.KindAuth, false, "%s", orDefault(msg, "the API key was rejected"))
	case code == http.StatusTooManyRequests:
		le = e.Errorf(llm.KindRateLimit, false, "%s", orDefault(msg, "too many requests"))
	case code >= 500: // includes Anthropic's 529 "overloaded"
		le = e.Errorf(llm.KindServer, false, "%s", orDefault(msg, http.StatusText(code)))
	case (code == 400 || code == 413 || code == 422) && IsContextOverflow(string(body)):
		le = e.Errorf(llm.KindContextOverflow, false, "the conversation is longer than the model's context window (%s)", orDefault(msg, "prompt too long"))
	case code == http.StatusNotFound:
		le = e.Errorf(llm.KindBadRequest, false, "%s", orDefault(msg, "not found; check base_url and the model id"))
	default:
		le = e.Errorf(llm.KindBadRequest, false, "%s", orDefault(msg, http.StatusText(code)))
	}
	le.Status = code
	// 503s often say when to come back too.
	le.RetryAfter = RetryAfter(resp.Header, time.Now())
	return le
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// IsContextOverflow reports whether an error body says the prompt is longer
// than the model accepts, using the phrases OpenAI, Anthropic, OpenRouter,
// vLLM and llama.cpp put in their 400s.
func IsContextOverflow(body string) bool {
	b := strings.ToLower(body)
	for _, m := range [...]string{
		"context_length_exceeded", "maximum context length", "context length", "prompt is too long",
		"too many tokens", "context window", "input is too long", "exceeds the context",
		"context size", "reduce the length", "string_above_max_length", "n_ctx", "too long for the model",
	} {
		if strings.Contains(b, m) {
			return true
		}
	}
	return false
}

// ProviderMessage extracts a human message from an error body: the JSON
// shapes used by OpenAI, Anthropic, Ollama, vLLM and OpenRouter, or the
// first line of a short plain-text body. HTML yields "".
func ProviderMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Code    any    `json:"code"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return clip(inner.Message)
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return clip(s)
		case v.Message != "":
			return clip(v.Message)
		case json.Unmarshal(v.Detail, &s) == nil && s != "":
			return clip(s)
		case len(v.Detail) > 0:
			return clip(string(v.Detail))
		case inner.Type != "":
			return clip(inner.Type)
		}
		return ""
	}
	t := strings.TrimSpace(string(body))
	if t == "" || t[0] == '<' || !utf8.ValidString(t) {
		return ""
	}
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[:i]
	}
	return clip(t)
}

// clip bounds a provider message and strips control characters so it is
// safe to print on a terminal.
func clip(s string) string {
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			return ' '
		}
		return r
	}, s))
	if utf8.RuneCountInString(s) > 300 {
		s = string([]rune(s)[:300]) + "…"
	}
	return s
}

// RetryAfter parses Retry-After (seconds or an HTTP date) and the
// retry-after-ms variant some OpenAI-compatible servers send. 0 = none.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// classifyNetError maps a failure before any response arrived. Refused
// connections, DNS and TLS failures mean the endpoint is unreachable; a
// connection dropped before the status line is a server problem.
func classifyNetError(err error) (llm.Kind, string) {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unkAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recErr tls.RecordHeaderError
	switch {
	case errors.As(err, &dnsErr):
		return llm.KindUnreachable, fmt.Sprintf("cannot resolve host %q", dnsErr.Name)
	case errors.Is(err, syscall.ECONNREFUSED):
		return llm.KindUnreachable, "connection refused (is the server running?)"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return llm.KindUnreachable, "no route to host"
	case errors.As(err, &certErr), errors.As(err, &unkAuth), errors.As(err, &hostErr):
		return llm.KindUnreachable, "TLS certificate problem: " + rootCause(err)
	case errors.As(err, &recErr), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return llm.KindUnreachable, "TLS handshake failed: the server speaks plain HTTP (use http:// in base_url)"
	case strings.Contains(err.Error(), "tls:"):
		return llm.KindUnreachable, "TLS handshake failed: " + rootCause(err)
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return llm.KindUnreachable, "cannot connect: " + rootCause(err)
	}
	return llm.KindServer, "connection closed before a response: " + rootCause(err)
}

// rootCause is the innermost error text: "connection refused" rather than
// `Post "http://…": dial tcp …: connection refused`.
func rootCause(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}
