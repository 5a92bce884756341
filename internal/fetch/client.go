// Package fetch reads web pages chosen by a model or found in a prompt. All
// such URLs go through a guarded HTTP client (dial-time SSRF check, redirect
// re-checks, timeouts, body and content-type limits); pages are extracted to
// markdown with go-readability behind a nesting-depth pre-scan, and cached
// by normalized URL. Configured endpoints (LLM, search provider) never use
// this client: they often live on localhost.
package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html/charset"

	"github.com/askygo/asky/internal/config"
)

// Options configure the guarded client.
type Options struct {
	// AllowPrivateNetworks opens private, loopback and link-local ranges.
	AllowPrivateNetworks bool
	// AllowHosts lists host names, IPs or CIDR prefixes that are always
	// reachable (tests allow 127.0.0.2 only; the guard stays on).
	AllowHosts []string
	UserAgent  string
	// ConnectTimeout bounds dialling and the TLS handshake; Timeout the
	// whole request including the body.
	ConnectTimeout time.Duration
	Timeout        time.Duration
	// MaxBodyBytes caps the decompressed body.
	MaxBodyBytes int64
	// MaxRedirects caps redirect hops (default 5).
	MaxRedirects int
	// Proxy is used only when set; with a proxy the dial-time check sees
	// the proxy's address, so the URL's host is checked by name instead.
	Proxy string
}

// OptionsFromConfig maps [fetch] (and general.user_agent) onto Options.
func OptionsFromConfig(cfg *config.Config) Options {
	f := cfg.Fetch
	ua := f.UserAgent
	if ua == "" {
		ua = cfg.General.UserAgent
	}
	// The original's configs set [limits] fetch_timeout; [fetch] timeout,
	// when given, wins.
	timeout := f.Timeout
	if cfg.Origin("fetch.timeout") == "" && cfg.Origin("limits.fetch_timeout") != "" && cfg.Limits.FetchTimeout > 0 {
		timeout = cfg.Limits.FetchTimeout
	}
	return Options{
		AllowPrivateNetworks: f.AllowPrivateNetworks,
		AllowHosts:           f.AllowHosts,
		UserAgent:            ua,
		ConnectTimeout:       time.Duration(f.ConnectTimeout) * time.Second,
		Timeout:              time.Duration(timeout) * time.Second,
		MaxBodyBytes:         f.MaxBodyBytes,
		Proxy:                f.Proxy,
	}
}

// Client is the guarded HTTP client.
type Client struct {
	hc       *http.Client
	opts     Options
	guard    *Guard
	names    []string
	maxBody  int64
	maxRedir int
	lookup   resolver
}

// ErrTooManyRedirects is returned after MaxRedirects hops.
var ErrTooManyRedirects = errors.New("too many redirects")

// NewClient builds the guarded client.
func NewClient(o Options) (*Client, error) {
	prefixes, names, err := parseAllowHosts(o.AllowHosts)
	if err != nil {
		return nil, err
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 5 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 20 * time.Second
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 10 << 20
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = 5
	}
	if o.UserAgent == "" {
		o.UserAgent = config.Defaults().General.UserAgent
	}
	c := &Client{opts: o, guard: NewGuard(o.AllowPrivateNetworks, prefixes...), names: names,
		maxBody: o.MaxBodyBytes, maxRedir: o.MaxRedirects, lookup: defaultResolver}
	guarded := &net.Dialer{Timeout: o.ConnectTimeout, Control: c.guard.Control}
	plain := &net.Dialer{Timeout: o.ConnectTimeout}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if host, _, err := net.SplitHostPort(addr); err == nil && hostAllowed(host, names) {
				return plain.DialContext(ctx, network, addr)
			}
			return guarded.DialContext(ctx, network, addr)
		},
		TLSHandshakeTimeout:    o.ConnectTimeout,
		ResponseHeaderTimeout:  o.Timeout,
		MaxResponseHeaderBytes: 64 << 10,
		ForceAttemptHTTP2:      true,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        30 * time.Second,
	}
	if o.Proxy != "" {
		pu, err := url.Parse(o.Proxy)
		if err != nil || pu.Host == "" {
			return nil, fmt.Errorf("[fetch] proxy: %q is not a URL", o.Proxy)
		}
		tr.Proxy = http.ProxyURL(pu)
		// The proxy itself is configured by the user, so it is dialled
		// without the address check; target hosts are vetted by name in
		// checkURL instead.
		tr.DialContext = plain.DialContext
	}
	c.hc = &http.Client{Transport: tr, Timeout: o.Timeout, CheckRedirect: c.checkRedirect}
	return c, nil
}

func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= c.maxRedir {
		return fmt.Errorf("%w (stopped after %d)", ErrTooManyRedirects, c.maxRedir)
	}
	return c.checkURL(req.Context(), req.URL)
}

// checkURL applies the URL-level rules: http(s) only, no userinfo, a host,
// and no internal address in any spelling. With a proxy the dial-time
// check sees only the proxy, so the target's name is resolved here too.
func (c *Client) checkURL(ctx context.Context, u *url.URL) error {
	if err := CheckTarget(u); err != nil {
		return err
	}
	return c.checkHost(ctx, u.Hostname(), c.opts.Proxy != "")
}

// Response is a fetched body, decoded to UTF-8.
type Response struct {
	URL      string // requested
	FinalURL string // after redirects
	// MediaType is the effective type (header, corrected by sniffing).
	MediaType string
	Body      []byte
	// Truncated is true when the body hit MaxBodyBytes.
	Truncated bool
	Status    int
}

// HTTPError is a non-2xx response.
type HTTPError struct {
	Status int
	URL    string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("HTTP %d %s from %s", e.Status, http.StatusText(e.Status), e.URL)
}

// UnsupportedTypeError is a body the extractor does not read.
type UnsupportedTypeError struct{ MediaType, Reason string }

func (e *UnsupportedTypeError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("unsupported content (%s): %s", e.MediaType, e.Reason)
	}
	return fmt.Sprintf("unsupported content type %s (asky reads HTML, text, JSON and XML pages)", e.MediaType)
}

// textTypes is the content-type allowlist.
var textTypes = map[string]bool{
	"text/html": true, "application/xhtml+xml": true, "text/plain": true, "text/markdown": true,
	"text/x-markdown": true, "text/csv": true, "application/json": true, "application/ld+json": true,
	"text/xml": true, "application/xml": true, "application/rss+xml": true, "application/atom+xml": true,
}

func allowedType(mt string) bool {
	return textTypes[mt] || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")
}

// Get fetches rawURL through the guard and returns its decoded body.
func (c *Client) Get(ctx context.Context, rawURL string) (*Response, error) {
	u, err := ParseTarget(rawURL)
	if err != nil {
		return nil, err
	}
	if err := c.checkURL(ctx, u); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,application/json;q=0.8,*/*;q=0.5")
	// Accept-Encoding is left to the transport, so it decompresses gzip
	// itself and the body cap below bounds the decompressed size.
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, cleanErr(err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL.String()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, &HTTPError{Status: resp.StatusCode, URL: final}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBody+1))
	if err != nil {
		return nil, cleanErr(err)
	}
	out := &Response{URL: rawURL, FinalURL: final, Status: resp.StatusCode}
	if int64(len(body)) > c.maxBody {
		body, out.Truncated = body[:c.maxBody], true
	}
	ct := resp.Header.Get("Content-Type")
	mt, err := EffectiveType(ct, body)
	if err != nil {
		return nil, err
	}
	out.MediaType = mt
	out.Body = DecodeText(body, ct)
	return out, nil
}

// EffectiveType checks the declared type against a sniff of the body:
// neither the header nor the extension is trusted alone.
func EffectiveType(header string, body []byte) (string, error) {
	mt, _, _ := mime.ParseMediaType(header)
	mt = strings.ToLower(mt)
	sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(body))
	binary := looksBinary(sniffed, body)
	switch {
	case mt == "application/pdf" || sniffed == "application/pdf":
		return "", &UnsupportedTypeError{MediaType: "application/pdf", Reason: "PDF pages are not read by the web tools yet; download it and use `asky corpus ingest`"}
	case mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream":
		if binary {
			return "", &UnsupportedTypeError{MediaType: sniffed, Reason: "binary content"}
		}
		if !allowedType(sniffed) && !strings.HasPrefix(sniffed, "text/") {
			return "text/plain", nil
		}
		return sniffed, nil
	case !allowedType(mt):
		return "", &UnsupportedTypeError{MediaType: mt}
	case binary:
		return "", &UnsupportedTypeError{MediaType: mt, Reason: "the body is binary (" + sniffed + ")"}
	}
	return mt, nil
}

// looksBinary reports a known binary signature, or a body whose first KB
// is mostly control bytes. A stray NUL or invalid sequence in a text page
// is cleaned later rather than rejected.
func looksBinary(sniffed string, body []byte) bool {
	for _, p := range []string{"image/", "audio/", "video/", "font/"} {
		if strings.HasPrefix(sniffed, p) {
			return true
		}
	}
	switch sniffed {
	case "application/zip", "application/x-gzip", "application/x-rar-compressed", "application/wasm",
		"application/vnd.ms-fontobject", "application/ogg":
		return true
	}
	head := body[:min(len(body), 1024)]
	if len(head) == 0 {
		return false
	}
	ctl := 0
	for _, b := range head {
		if b < 0x20 && b != '\n' && b != '\r' && b != '\t' && b != '\f' && b != 0x1b {
			ctl++
		}
	}
	return ctl*10 > len(head)
}

// DecodeText converts body to UTF-8 using the declared or detected charset,
// then drops NULs and invalid sequences.
func DecodeText(body []byte, contentType string) []byte {
	enc, name, _ := charset.DetermineEncoding(body, contentType)
	if enc != nil && name != "utf-8" {
		if d, err := enc.NewDecoder().Bytes(body); err == nil {
			body = d
		}
	}
	if bytes.IndexByte(body, 0) >= 0 {
		body = bytes.ReplaceAll(body, []byte{0}, nil)
	}
	if !utf8.Valid(body) {
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	return body
}

// cleanErr turns transport errors into short messages for the model.
func cleanErr(err error) error {
	var be *BlockedError
	if errors.As(err, &be) {
		return be
	}
	if errors.Is(err, ErrTooManyRedirects) {
		return ErrTooManyRedirects
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return fmt.Errorf("timed out fetching %s", ue.URL)
		}
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) {
			return fmt.Errorf("cannot resolve host %s", dnsErr.Name)
		}
		// Keep the inner error (blocked scheme, connection refused, …).
		return fmt.Errorf("fetch %s: %v", ue.URL, unwrapOp(ue.Err))
	}
	return err
}

func unwrapOp(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}
