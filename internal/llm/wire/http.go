package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/askygo/asky/internal/llm"
)

// Endpoint is one configured provider endpoint. It carries everything both
// clients need to make a call: where, with which headers, how long to wait
// and where to trace.
type Endpoint struct {
	// Name labels errors: the configured api name ("openai", "local");
	// the clients default it to their wire format when it is empty.
	Name    string
	BaseURL string
	HTTP    *http.Client
	// Headers are sent with every request (auth headers included); auth
	// header values never reach the trace.
	Headers map[string]string
	// Secret is the API key; it is redacted where it is sent, and any
	// occurrence of a key of 8 characters or more is redacted from traces
	// and error messages.
	Secret    string
	UserAgent string
	// Timeout bounds the wait for the response to start (headers and first
	// frame); IdleTimeout bounds every later gap between frames. A long
	// answer that keeps streaming is never cut off by either.
	Timeout     time.Duration
	IdleTimeout time.Duration
	// Trace receives the request body and raw response bytes (-vv).
	Trace io.Writer

	traceOnce sync.Once
	tw        *redactWriter
}

// Provider labels errors, e.g. "openai at http://127.0.0.1:11434/v1".
func (e *Endpoint) Provider() string { return e.Name + " at " + e.BaseURL }

// Errorf builds a classified error for this endpoint.
func (e *Endpoint) Errorf(kind llm.Kind, streamed bool, format string, args ...any) *llm.Error {
	return &llm.Error{Kind: kind, Provider: e.redact(e.Provider()), API: e.Name, Streamed: streamed, Message: e.redact(fmt.Sprintf(format, args...))}
}

// redact hides the key in an error message: every occurrence of a long
// key, and a short one where it stands as a whole word ("invalid key
// bad-key"), so a placeholder like "x" leaves other words alone.
func (e *Endpoint) redact(s string) string {
	if len(e.Secret) >= minSecretLen || e.Secret == "" {
		return string(redactAll([]byte(s), e.Secret))
	}
	var b strings.Builder
	for {
		i := strings.Index(s, e.Secret)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := i + len(e.Secret)
		if !isWordByte(s, i-1) && !isWordByte(s, j) {
			b.WriteString(s[:i] + "[redacted]")
		} else {
			b.WriteString(s[:j])
		}
		s = s[j:]
	}
}

// isWordByte reports whether s[i] exists and could continue a key.
func isWordByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c == '-' || c == '_' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// Stream is an open response. Read events with Next (an event stream) or
// the whole body with ReadAll (a server that ignored stream:true).
type Stream struct {
	ep     *Endpoint
	ctx    context.Context
	parent context.Context
	cancel context.CancelCauseFunc
	body   io.ReadCloser
	r      io.Reader
	sse    *SSEReader
	// EventStream is false when the server answered with a plain JSON body.
	EventStream bool

	mu    sync.Mutex
	timer *time.Timer
}

// errStalled and errNoResponse are cancellation causes set by the watchdog.
var (
	errStalled    = errors.New("stream stalled")
	errNoResponse = errors.New("no response")
)

// Post sends body as JSON to BaseURL+path and returns the open stream, or a
// classified error for transport failures and non-2xx statuses.
func (e *Endpoint) Post(ctx context.Context, path string, body any) (*Stream, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%s: encode request: %w", e.Provider(), err)
	}
	url := strings.TrimRight(e.BaseURL, "/") + path
	cctx, cancel := context.WithCancelCause(ctx)
	s := &Stream{ep: e, ctx: cctx, parent: ctx, cancel: cancel}
	s.arm(e.Timeout, errNoResponse)
	req, err := http.NewRequestWithContext(cctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		s.Close()
		return nil, e.Errorf(llm.KindBadRequest, false, "invalid base_url %q: %v", e.BaseURL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if e.UserAgent != "" {
		req.Header.Set("User-Agent", e.UserAgent)
	}
	for k, v := range e.Headers {
		req.Header.Set(k, v)
	}
	e.traceRequest(req, payload)
	hc := e.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		err = s.transportError(err, false)
		s.Close()
		return nil, err
	}
	e.tracef("<- %s\n", resp.Status)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer s.Close()
		defer resp.Body.Close()
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		e.tracef("%s\n", raw)
		return nil, e.statusError(resp, raw)
	}
	s.body = resp.Body
	s.r = &watchReader{s: s, r: resp.Body}
	if e.Trace != nil {
		s.r = io.TeeReader(s.r, e.trace())
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		// The server ignored stream:true; the client reads the whole body.
	case "text/html":
		s.Close()
		return nil, e.Errorf(llm.KindBadResponse, false, "expected an event stream, got an HTML page; is base_url the API endpoint?")
	default:
		// text/event-stream, or a proxy that mislabels it. A bare JSON
		// body without its content type (small test servers, some
		// proxies) starts with '{', which no event stream does.
		br := bufio.NewReaderSize(s.r, 32<<10)
		s.r = br
		if firstByte(br) == '{' {
			break
		}
		s.EventStream = true
		s.sse = NewSSEReader(s.r)
	}
	return s, nil
}

// firstByte peeks at the first non-blank byte of the body (0 when there
// is none in its first bytes), without consuming anything.
func firstByte(br *bufio.Reader) byte {
	for n := 1; n <= 256; n++ {
		b, err := br.Peek(n)
		if len(b) < n || err != nil {
			return 0
		}
		switch c := b[n-1]; c {
		case ' ', '\t', '\r', '\n':
		default:
			return c
		}
	}
	return 0
}

// Next returns the next SSE event, io.EOF at the end, or a classified error
// (timeout, cancellation, broken connection). streamed is recorded in the
// error so the retry wrapper knows whether output was already delivered.
func (s *Stream) Next(streamed bool) (Event, error) {
	ev, err := s.sse.Next()
	switch {
	case err == nil:
		return ev, nil
	case errors.Is(err, io.EOF) && s.ctx.Err() == nil:
		return ev, io.EOF
	}
	// An EOF caused by cancellation or the watchdog is reported as such,
	// not as a truncated stream.
	return ev, s.transportError(err, streamed)
}

// ReadAll reads a non-streamed JSON body.
func (s *Stream) ReadAll() ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(s.r, 32<<20))
	if err != nil {
		return nil, s.transportError(err, false)
	}
	return b, nil
}

// Read hands the response to whole when the server sent one JSON body,
// else to stream to read the event stream.
func (s *Stream) Read(whole func([]byte) error, stream func(*Stream) error) error {
	if s.EventStream {
		return stream(s)
	}
	body, err := s.ReadAll()
	if err != nil {
		return err
	}
	return whole(body)
}

// Close releases the response and stops the watchdog.
func (s *Stream) Close() {
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	if s.body != nil {
		s.body.Close()
	}
	s.cancel(nil)
	if s.ep.Trace != nil {
		s.ep.trace().Flush()
	}
}

// arm (re)starts the watchdog: when d passes without data the request is
// cancelled with cause.
// A zero d disarms it.
func (s *Stream) arm(d time.Duration, cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if d > 0 {
		s.timer = time.AfterFunc(d, func() { s.cancel(cause) })
	}
}

// watchReader re-arms the idle watchdog whenever bytes arrive.
type watchReader struct {
	s *Stream
	r io.Reader
}

func (w *watchReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 {
		w.s.arm(w.s.ep.IdleTimeout, errStalled)
	}
	return n, err
}

// transportError classifies a failure of the request or of reading the body.
func (s *Stream) transportError(err error, streamed bool) error {
	e := s.ep
	if s.parent.Err() != nil {
		if errors.Is(s.parent.Err(), context.Canceled) {
			return fmt.Errorf("%s: %w", e.Provider(), context.Canceled)
		}
		le := e.Errorf(llm.KindTimeout, streamed, "request deadline exceeded")
		le.Err = context.DeadlineExceeded
		return le
	}
	switch context.Cause(s.ctx) {
	case errStalled:
		return e.Errorf(llm.KindTimeout, streamed, "stream stalled: no data for %s", e.IdleTimeout)
	case errNoResponse:
		return e.Errorf(llm.KindTimeout, streamed, "no response within %s", e.Timeout)
	}
	if errors.Is(err, ErrFrameTooLarge) {
		return e.Errorf(llm.KindBadResponse, streamed, "%v", err)
	}
	if s.body != nil {
		// The response had started: the connection broke mid-body.
		le := e.Errorf(llm.KindTruncated, streamed, "connection lost mid-response: %s", rootCause(err))
		le.Err = err
		return le
	}
	kind, msg := classifyNetError(err)
	le := e.Errorf(kind, streamed, "%s", msg)
	le.Err = err
	return le
}
