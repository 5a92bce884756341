package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// isSecretHeader reports headers that are never traced, whatever their value.
func isSecretHeader(k string) bool {
	switch http.CanonicalHeaderKey(k) {
	case "Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key", "Proxy-Authorization":
		return true
	}
	return false
}

// minSecretLen is the shortest key redacted wherever it appears. A shorter
// one ("x", "ollama", "lm-studio": placeholders local servers ignore) is
// no secret, and replacing every occurrence of it would mangle the whole
// trace ("inde[redacted]"); it is still redacted where it is sent.
const minSecretLen = 8

// redactAll replaces every occurrence of a secret long enough to be one.
func redactAll(b []byte, secret string) []byte {
	if len(secret) < minSecretLen {
		return b
	}
	return bytes.ReplaceAll(b, []byte(secret), []byte("[redacted]"))
}

// isSecretParam reports query parameters that carry a key by name.
func isSecretParam(k string) bool {
	switch strings.ToLower(strings.ReplaceAll(k, "-", "_")) {
	case "key", "api_key", "apikey", "access_token", "token", "auth", "password":
		return true
	}
	return false
}

// redactURL hides query parameters that carry the key: by name, or by a
// value equal to the key whatever its length.
func redactURL(u *url.URL, secret string) string {
	if u.RawQuery == "" {
		return u.String()
	}
	q := u.Query()
	changed := false
	for k, vs := range q {
		for i, v := range vs {
			if isSecretParam(k) || (secret != "" && v == secret) {
				vs[i], changed = "[redacted]", true
			}
		}
	}
	if !changed {
		return u.String()
	}
	c := *u
	c.RawQuery = strings.ReplaceAll(q.Encode(), url.QueryEscape("[redacted]"), "[redacted]")
	return c.String()
}

// trace returns the redacting trace writer, creating it on first use.
func (e *Endpoint) trace() *redactWriter {
	e.traceOnce.Do(func() { e.tw = &redactWriter{w: e.Trace, secret: e.Secret} })
	return e.tw
}

func (e *Endpoint) tracef(format string, args ...any) {
	if e.Trace == nil {
		return
	}
	fmt.Fprintf(e.trace(), format, args...)
}

// traceRequest writes the request line, headers (auth redacted) and the
// indented JSON body.
func (e *Endpoint) traceRequest(req *http.Request, body []byte) {
	if e.Trace == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "-> %s %s\n", req.Method, redactURL(req.URL, e.Secret))
	keys := make([]string, 0, len(req.Header))
	for k := range req.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := strings.Join(req.Header[k], ", ")
		if isSecretHeader(k) {
			v = "[redacted]"
		}
		fmt.Fprintf(&b, "%s: %s\n", k, v)
	}
	var ind bytes.Buffer
	if json.Indent(&ind, body, "", "  ") == nil {
		body = ind.Bytes()
	}
	b.Write(body)
	b.WriteByte('\n')
	io.WriteString(e.trace(), b.String())
	e.trace().Flush()
}

// redactWriter removes every occurrence of the secret (when it is long
// enough to be one, see minSecretLen). It works line by
// line so a key split across two network reads is still caught.
type redactWriter struct {
	mu     sync.Mutex
	w      io.Writer
	secret string
	buf    []byte
}

func (r *redactWriter) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if i := bytes.LastIndexByte(r.buf, '\n'); i >= 0 {
		r.emit(r.buf[:i+1])
		r.buf = append(r.buf[:0], r.buf[i+1:]...)
	}
	return len(p), nil
}

// Flush writes a pending partial line.
func (r *redactWriter) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.buf) > 0 {
		r.emit(append(r.buf, '\n'))
		r.buf = r.buf[:0]
	}
}

func (r *redactWriter) emit(b []byte) {
	_, _ = r.w.Write(redactAll(b, r.secret))
}
