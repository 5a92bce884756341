// Package httpapi is the daemon's HTTP transport: an OpenAI-compatible
// POST /v1/chat/completions (so existing clients can talk to asky), asky's
// own POST /v1/ask (the `asky query --json` contract), GET /v1/models and
// GET /v1/health. Safety follows reliability.md §3.7: bearer token compared
// in constant time, Host header check against DNS rebinding, no CORS,
// server timeouts, body limit, and rate limits per client with a stricter
// one for failed authentication.
package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/turn"
)

// MaxBody caps request bodies (413 beyond).
const MaxBody = 1 << 20

// Model is one entry of GET /v1/models.
type Model struct {
	// Alias is the asky model alias clients pass as "model".
	Alias string
	// ID is the provider's model id, shown for information.
	ID      string
	Default bool
}

// Options configure a Server.
type Options struct {
	Service *daemon.Service
	// Token is the bearer token; empty means no authentication (only
	// allowed on loopback — the caller enforces that).
	Token string
	// AllowedHosts are Host header names accepted besides localhost,
	// 127.0.0.1 and ::1.
	AllowedHosts []string
	Version      string
	// Models lists the configured aliases for GET /v1/models.
	Models func() []Model
	// AskResult renders a turn for POST /v1/ask (the `asky query --json`
	// contract, owned by the CLI).
	AskResult func(*turn.Result) any
	// Usage serves GET /v1/usage (nil: 404).
	Usage UsageLedger
	// Log gets one line per request; nil discards.
	Log io.Writer
	Now func() time.Time
	// Rate and Burst limit requests per client (token or IP); zero uses
	// 2/s with a burst of 10 ([daemon.http] rate and burst).
	Rate  rate.Limit
	Burst int
	// FailRate and FailBurst limit failed authentications per IP; zero
	// uses one per 10 s with a burst of 5. A request with the valid token
	// is never held back by them.
	FailRate  rate.Limit
	FailBurst int
}

// Server serves the API.
type Server struct {
	o         Options
	tokenHash [32]byte
	hosts     map[string]bool

	mu    sync.Mutex
	limit map[string]*rate.Limiter
	fails map[string]*rate.Limiter
}

// New returns a Server.
func New(o Options) *Server {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Rate == 0 {
		o.Rate, o.Burst = 2, 10
	}
	if o.Burst <= 0 {
		o.Burst = max(1, int(o.Rate))
	}
	if o.FailRate == 0 {
		o.FailRate, o.FailBurst = rate.Every(10*time.Second), 5
	}
	s := &Server{o: o, tokenHash: sha256.Sum256([]byte(o.Token)),
		hosts: map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true},
		limit: map[string]*rate.Limiter{}, fails: map[string]*rate.Limiter{}}
	for _, h := range o.AllowedHosts {
		s.hosts[strings.ToLower(strings.Trim(h, "[]"))] = true
	}
	return s
}

// Handler returns the API's handler with every guard applied.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/health", s.health)
	mux.Handle("GET /v1/models", s.guard(s.models))
	mux.Handle("GET /v1/models/{model}", s.guard(s.model))
	mux.Handle("POST /v1/chat/completions", s.guard(s.chat))
	mux.Handle("POST /v1/ask", s.guard(s.ask))
	mux.Handle("GET /v1/usage", s.guard(s.usageReport))
	return s.logged(s.checkHost(jsonFallback(mux)))
}

// Serve serves on ln until ctx ends, then cancels the turns in flight
// (the engine records them as interrupted) and waits for their handlers.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	base, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       120 * time.Second,
		// No WriteTimeout: answers stream for as long as the turn runs;
		// every SSE write sets its own deadline instead.
		BaseContext: func(net.Listener) context.Context { return base },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	cancel()
	sctx, done := context.WithTimeout(context.Background(), 15*time.Second)
	defer done()
	err := srv.Shutdown(sctx)
	if e := <-errc; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	return err
}

// checkHost refuses Host headers that are not ours, so a web page whose
// name resolves to 127.0.0.1 (DNS rebinding) cannot reach the API.
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.ToLower(strings.Trim(host, "[]"))
		if !s.hosts[host] {
			writeError(w, http.StatusForbidden, "forbidden_host",
				fmt.Sprintf("host %q is not allowed (add it to [daemon.http] allowed_hosts)", host))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// guard applies the cross-site checks, authentication, rate limits and
// the body limit.
func (s *Server) guard(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.sameSite(w, r) {
			return
		}
		ip := clientIP(r)
		key := "ip:" + ip
		if s.o.Token != "" {
			// The token is checked first: failures from a web page or a
			// guesser on the same address must not lock the owner out.
			if !s.authorized(r) {
				if !s.limiter(s.fails, ip, s.o.FailRate, s.o.FailBurst).Allow() {
					w.Header().Set("Retry-After", "10")
					writeError(w, http.StatusTooManyRequests, "rate_limited", "too many failed authentications; wait and retry")
					return
				}
				w.Header().Set("WWW-Authenticate", `Bearer realm="asky"`)
				writeError(w, http.StatusUnauthorized, "unauthorized", "missing or wrong bearer token (Authorization: Bearer $ASKY_DAEMON_TOKEN)")
				return
			}
			key = "token"
		}
		if !s.limiter(s.limit, key, s.o.Rate, s.o.Burst).Allow() {
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusTooManyRequests, "rate_limited", "too many requests; slow down (raise [daemon.http] rate and burst)")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		h(w, r)
	})
}

// sameSite refuses what a web page can send to a local daemon (CSRF): a
// POST that is not application/json (text/plain and form posts need no
// preflight), a foreign Origin, or a browser's Sec-Fetch-Site:
// cross-site. Programs (curl, SDKs) send neither header.
func (s *Server) sameSite(w http.ResponseWriter, r *http.Request) bool {
	if site := strings.ToLower(r.Header.Get("Sec-Fetch-Site")); site == "cross-site" || site == "same-site" {
		writeError(w, http.StatusForbidden, "forbidden_origin", "cross-site requests are refused")
		return false
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Host == "" || !s.hosts[strings.ToLower(strings.Trim(u.Hostname(), "[]"))] {
			writeError(w, http.StatusForbidden, "forbidden_origin", fmt.Sprintf("origin %q is not allowed", origin))
			return false
		}
	}
	if r.Method == http.MethodPost {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			writeError(w, http.StatusUnsupportedMediaType, "invalid_request_error", "send the body as Content-Type: application/json")
			return false
		}
	}
	return true
}

// authorized compares sha256 digests in constant time: hashing first
// hides the token's length too. The scheme is case-insensitive (RFC 9110).
func (s *Server) authorized(r *http.Request) bool {
	scheme, got, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	h := sha256.Sum256([]byte(strings.TrimSpace(got)))
	return subtle.ConstantTimeCompare(h[:], s.tokenHash[:]) == 1
}

// limiter returns the limiter for key, creating it. The maps are reset
// when they grow large so that many client addresses cannot exhaust
// memory (a reset only forgives, it never blocks anyone).
func (s *Server) limiter(m map[string]*rate.Limiter, key string, r rate.Limit, burst int) *rate.Limiter {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := m[key]
	if l == nil {
		if len(m) >= 10000 {
			clear(m)
		}
		l = rate.NewLimiter(r, burst)
		m[key] = l
	}
	return l
}

func clientIP(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": s.o.Version})
}

// modelEntry is one model in OpenAI's shape, with asky's additions.
type modelEntry struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	Model   string `json:"asky_model_id,omitempty"`
	Default bool   `json:"asky_default,omitempty"`
}

func (s *Server) modelList() []modelEntry {
	list := []modelEntry{}
	if s.o.Models != nil {
		for _, m := range s.o.Models() {
			list = append(list, modelEntry{ID: m.Alias, Object: "model", OwnedBy: "asky", Model: m.ID, Default: m.Default})
		}
	}
	return list
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": s.modelList()})
}

// model is GET /v1/models/{model} (the SDKs' models.retrieve).
func (s *Server) model(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("model")
	for _, m := range s.modelList() {
		if m.ID == name {
			writeJSON(w, http.StatusOK, m)
			return
		}
	}
	apiError{Status: http.StatusNotFound, Type: "invalid_request_error", Code: "model_not_found", Param: "model",
		Message: fmt.Sprintf("unknown model alias %q (GET /v1/models lists the aliases)", name)}.write(w)
}

// askRequest is POST /v1/ask. The sampling fields are the chat
// endpoint's, validated the same way; unknown fields are refused.
type askRequest struct {
	Question     string `json:"question"`
	Model        string `json:"model,omitempty"`
	Conversation string `json:"conversation,omitempty"`
	Lean         bool   `json:"lean,omitempty"`
	samplingFields
}

func (s *Server) ask(w http.ResponseWriter, r *http.Request) {
	var raw json.RawMessage
	if !decode(w, json.NewDecoder(r.Body), &raw) {
		return
	}
	var req askRequest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		if e, ok := unknownAskField(err); ok {
			e.write(w)
			return
		}
		bodyError(err).write(w)
		return
	}
	sampling, e := req.sampling()
	if e != nil {
		e.write(w)
		return
	}
	req.Question = strings.TrimSpace(req.Question)
	if req.Question == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", `"question" is required`)
		return
	}
	if !validConversation(w, req.Conversation) {
		return
	}
	var ns notSent
	res, err := s.o.Service.Ask(r.Context(), daemon.Ask{Conversation: conversationKey(req.Conversation), Question: req.Question,
		Model: req.Model, Lean: req.Lean, Sampling: sampling, Events: ns.event})
	ns.setHeader(w, nil)
	if unsaved(w, res, err) {
		err = nil
	}
	if err != nil {
		writeTurnError(w, err)
		return
	}
	var body any = res.Answer
	if s.o.AskResult != nil {
		body = s.o.AskResult(res)
	}
	writeJSON(w, http.StatusOK, body)
}

// decode reads one JSON value, answering 413 or 400 itself on failure. A
// body holding anything after that value (a second object) is refused:
// two parsers must never disagree on which object a request meant.
func decode(w http.ResponseWriter, dec *json.Decoder, v any) bool {
	err := dec.Decode(v)
	if err == nil {
		var extra json.RawMessage
		if derr := dec.Decode(&extra); derr != io.EOF {
			var tooBig *http.MaxBytesError
			if errors.As(derr, &tooBig) {
				err = derr
			} else {
				writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid JSON body: the body must hold exactly one JSON object")
				return false
			}
		} else {
			return true
		}
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		writeError(w, http.StatusRequestEntityTooLarge, "request_too_large", fmt.Sprintf("request body is larger than %d bytes", tooBig.Limit))
		return false
	}
	writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid JSON body: "+err.Error())
	return false
}

// validConversation accepts short single-line names; they become session
// names ("http:<name>").
func validConversation(w http.ResponseWriter, name string) bool {
	if len(name) > 64 || strings.ContainsFunc(name, session.IsNameControl) {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "conversation names are single-line and at most 64 bytes")
		return false
	}
	return true
}

// conversationKey is the conversation's name across transports, which is
// also its asky session name: "http:<name>".
func conversationKey(name string) string {
	if name == "" {
		return ""
	}
	return "http:" + name
}

// unsaved reports whether err only says that a complete answer could not
// be saved: the client still gets the answer (it was paid for), with the
// reason in an X-Asky-Warning header and history_id null.
func unsaved(w http.ResponseWriter, res *turn.Result, err error) bool {
	var se *turn.SaveError
	if res == nil || !errors.As(err, &se) {
		return false
	}
	w.Header().Set("X-Asky-Warning", strings.ReplaceAll(se.Error(), "\n", " "))
	return true
}

// writeTurnError answers a failed ask (see turnError).
func writeTurnError(w http.ResponseWriter, err error) {
	turnError(err).write(w)
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	apiError{Status: status, Type: typ, Message: msg}.write(w)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
