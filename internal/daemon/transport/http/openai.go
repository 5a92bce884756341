package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/llm"
)

// RequestIDHeader carries the id of every response (the OpenAI SDKs
// expose it as _request_id); the daemon log names the same id.
const RequestIDHeader = "X-Request-Id"

// IgnoredHeader lists the parameters a chat request set that asky did not
// apply: the sampling fields the answering model's API cannot take (an
// Anthropic model has no seed or penalties; see
// anthropic.ApplySampling) and the OpenAI fields in unapplied. Absent
// when everything the request set was applied. Refusing them instead
// would break clients that always send them.
const IgnoredHeader = "X-Asky-Ignored-Parameters"

// unapplied are OpenAI request fields asky accepts but never applies:
// they concern OpenAI's own service (service_tier, predicted outputs,
// its hosted web search) or outputs asky does not produce (top
// log-probabilities), or are specific to a few OpenAI models
// (verbosity); set, they are named in IgnoredHeader.
var unapplied = []string{"prediction", "service_tier", "top_logprobs", "verbosity", "web_search_options"}

// apiError is an error response in OpenAI's shape: {"error": {"message",
// "type", "param", "code"}}. The SDKs choose their exception class from
// the status (401 AuthenticationError, 404 NotFoundError, 429
// RateLimitError, …) and expose code and param.
type apiError struct {
	Status  int
	Type    string
	Code    string
	Param   string
	Message string
	// RetryAfter, when positive, is sent as Retry-After (seconds).
	RetryAfter int
	// NoRetry sends X-Should-Retry: false, which the OpenAI SDKs obey
	// over their default of retrying every 5xx twice: asky has already
	// retried the provider, and each client retry would run (and pay for)
	// the whole turn again.
	NoRetry bool
}

func (e apiError) body() map[string]any {
	m := map[string]any{"message": e.Message, "type": e.Type, "param": nil, "code": nil}
	if e.Param != "" {
		m["param"] = e.Param
	}
	if e.Code != "" {
		m["code"] = e.Code
	}
	return map[string]any{"error": m}
}

func (e apiError) write(w http.ResponseWriter) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	if e.NoRetry {
		w.Header().Set("X-Should-Retry", "false")
	}
	writeJSON(w, e.Status, e.body())
}

// turnError maps a failed ask onto an API error: the client's mistakes
// are 4xx, a provider that failed behind asky is 502 (429 when it rate
// limited us, with its Retry-After), asky's own failures 500.
func turnError(err error) apiError {
	var (
		re *daemon.RequestError
		ua *config.UnknownAliasError
		le *llm.Error
		pe *llm.ParamError
	)
	switch {
	case errors.Is(err, daemon.ErrBusy):
		return apiError{Status: http.StatusTooManyRequests, Type: "busy", Code: "conversation_busy", Message: err.Error(), RetryAfter: 5}
	case errors.As(err, &re) && errors.As(err, &ua) && ua.From == "":
		return apiError{Status: http.StatusNotFound, Type: "invalid_request_error", Code: "model_not_found", Param: "model", Message: re.Error()}
	case errors.As(err, &pe):
		return paramError(pe)
	case errors.As(err, &re):
		return apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Message: re.Error()}
	case errors.Is(err, context.Canceled):
		return apiError{Status: http.StatusServiceUnavailable, Type: "interrupted", Message: "the turn was interrupted (client gone or daemon shutting down) and saved as interrupted"}
	case errors.As(err, &le) && le.Kind == llm.KindRateLimit:
		return apiError{Status: http.StatusTooManyRequests, Type: "rate_limited", Code: "upstream_rate_limited", Message: err.Error(),
			RetryAfter: max(1, int(math.Ceil(le.RetryAfter.Seconds())))}
	case errors.As(err, &le) && le.Kind == llm.KindContextOverflow:
		return apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: "context_length_exceeded", Param: "messages", Message: err.Error()}
	case errors.As(err, &le):
		return apiError{Status: http.StatusBadGateway, Type: "upstream_error", Message: err.Error(), NoRetry: true}
	}
	return apiError{Status: http.StatusInternalServerError, Type: "asky_error", Message: err.Error(), NoRetry: true}
}

// chatOptions are the OpenAI request fields asky cannot honour and must
// refuse rather than ignore: the client would get something other than
// what it asked for.
type chatOptions struct {
	N              *int            `json:"n"`
	Tools          json.RawMessage `json:"tools"`
	Functions      json.RawMessage `json:"functions"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	Logprobs      bool `json:"logprobs"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// check refuses what asky cannot do, naming the parameter.
func (o chatOptions) check() *apiError {
	bad := func(param, msg string) *apiError {
		return &apiError{Status: http.StatusBadRequest, Type: "invalid_request_error", Code: "unsupported_parameter", Param: param, Message: msg}
	}
	switch {
	case o.N != nil && *o.N != 1:
		return bad("n", fmt.Sprintf("n = %d is not supported: asky answers with one choice (leave n out or set 1)", *o.N))
	case hasItems(o.Tools) || hasItems(o.Functions):
		return bad("tools", "client-side tools are not supported: asky runs its own tools (web search, corpus, memory) inside the turn")
	case o.ResponseFormat != nil && o.ResponseFormat.Type != "" && o.ResponseFormat.Type != "text":
		return bad("response_format", fmt.Sprintf("response_format %q is not supported: asky answers in markdown text", o.ResponseFormat.Type))
	case o.Logprobs:
		return bad("logprobs", "logprobs are not supported")
	}
	return nil
}

// hasItems reports whether raw is a non-empty JSON array.
func hasItems(raw json.RawMessage) bool {
	var items []json.RawMessage
	return json.Unmarshal(raw, &items) == nil && len(items) > 0
}

// ignoredParameters lists the unapplied fields the request set (not
// null) and the names in also, sorted and without repeats.
func ignoredParameters(raw map[string]json.RawMessage, also ...string) string {
	set := slices.Clone(also)
	for _, k := range unapplied {
		if v, ok := raw[k]; ok && strings.TrimSpace(string(v)) != "null" {
			set = append(set, k)
		}
	}
	slices.Sort(set)
	return strings.Join(slices.Compact(set), ", ")
}

// jsonFallback answers unknown paths (404) and wrong methods (405, with
// the mux's Allow header) in the OpenAI error shape rather than the mux's
// plain text, so an SDK calling an endpoint asky lacks (/v1/embeddings)
// gets a readable NotFoundError.
func jsonFallback(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" {
			mux.ServeHTTP(w, r)
			return
		}
		sw := &statusOnly{ResponseWriter: w, status: http.StatusNotFound}
		h.ServeHTTP(sw, r)
		if sw.status == http.StatusMethodNotAllowed {
			writeError(w, sw.status, "invalid_request_error", fmt.Sprintf("%s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, w.Header().Get("Allow")))
			return
		}
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no endpoint %s %s: asky serves /v1/chat/completions, /v1/models, /v1/ask, /v1/usage and /v1/health", r.Method, r.URL.Path))
	})
}

// statusOnly keeps the status a fallback handler sets and drops its body.
type statusOnly struct {
	http.ResponseWriter
	status int
}

func (s *statusOnly) WriteHeader(code int)        { s.status = code }
func (s *statusOnly) Write(b []byte) (int, error) { return len(b), nil }
