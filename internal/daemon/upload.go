package daemon

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/askygo/asky/internal/fetch"
)

// Upload limits (the original's): per message and per file.
const (
	MaxUploadFiles = 10
	MaxUploadBytes = 25 << 20
)

// uploadTypes maps the extensions accepted to the content types a server
// may declare for them (file servers such as Telegram's send
// octet-stream); pdf and epub are also checked by their magic bytes.
var uploadTypes = map[string][]string{
	".pdf":      {"application/pdf", "application/octet-stream"},
	".epub":     {"application/epub+zip", "application/octet-stream"},
	".txt":      {"text/plain", "application/octet-stream"},
	".md":       {"text/markdown", "text/x-markdown", "text/plain", "application/octet-stream"},
	".markdown": {"text/markdown", "text/plain", "application/octet-stream"},
	".html":     {"text/html"},
	".htm":      {"text/html"},
	".json":     {"application/json", "text/plain", "application/octet-stream"},
	".csv":      {"text/csv", "text/plain", "application/octet-stream"},
}

// Ingester adds stored uploads to the corpus; the daemon command injects
// the CLI's ingestion. It must come back as soon as the files are
// searchable: slow work (the deep tier) is left to the background, since
// the chat user waits for the reply.
type Ingester func(ctx context.Context, conversation string, paths []string) Ingested

// Ingested is what an Ingester did with the stored paths.
type Ingested struct {
	// Failed holds the paths that are not in the corpus, each with why
	// (one line). Handle deletes the files it stored for this message:
	// an upload that failed leaves nothing behind, and sending it again
	// (fixed) starts afresh.
	Failed map[string]string
	// Note follows the per-file lines (say, what to ask now).
	Note string
}

// Uploads downloads documents sent by URL into the first document root
// and ingests them.
type Uploads struct {
	// Dir is where files are stored (<first document root>/uploads).
	Dir    string
	Ingest Ingester
	// Client downloads; nil uses a guarded client (public addresses only,
	// HTTPS only, redirects checked the same way).
	Client *http.Client
	// AllowHTTPLoopback admits http:// URLs to loopback (tests only).
	AllowHTTPLoopback bool
}

// NewGuardedClient returns the download client: every connection,
// redirects included, is vetted by the SSRF guard; allow lists extra
// prefixes (tests); tlsCfg trusts extra CAs (tests), nil the system's.
func NewGuardedClient(tlsCfg *tls.Config, allow ...netip.Prefix) *http.Client {
	guard := fetch.NewGuard(false, allow...)
	dialer := &net.Dialer{Timeout: 15 * time.Second, Control: guard.Control}
	tr := &http.Transport{DialContext: dialer.DialContext, TLSClientConfig: tlsCfg, TLSHandshakeTimeout: 15 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second}
	return &http.Client{Transport: tr, Timeout: 5 * time.Minute}
}

// Handle stores and ingests the documents at urls and returns the reply
// for the chat.
func (u *Uploads) Handle(ctx context.Context, conversation string, urls []string) string {
	if u == nil || u.Dir == "" || u.Ingest == nil {
		return "Document uploads need a document root: set [research] local_document_roots on the machine running the daemon."
	}
	if len(urls) > MaxUploadFiles {
		return fmt.Sprintf("Error: %d files in one message; send at most %d.", len(urls), MaxUploadFiles)
	}
	type upload struct {
		name, path string
		dup        bool
		err        error
	}
	var ups []upload
	var stored []string
	for _, raw := range urls {
		name := uploadName(raw)
		p, dup, err := u.fetch(ctx, raw, name)
		ups = append(ups, upload{name: name, path: p, dup: dup, err: err})
		if err == nil {
			stored = append(stored, p)
		}
	}
	var in Ingested
	if len(stored) > 0 {
		in = u.Ingest(ctx, conversation, stored)
	}
	var lines []string
	for _, up := range ups {
		reason, failed := in.Failed[up.path]
		switch {
		case up.err != nil:
			lines = append(lines, fmt.Sprintf("✗ %s: %v", up.name, up.err))
		case failed:
			if !up.dup { // an earlier upload's file may be in the corpus
				os.Remove(up.path)
			}
			lines = append(lines, fmt.Sprintf("✗ %s: %s", up.name, reason))
		case up.dup:
			lines = append(lines, fmt.Sprintf("= %s: already uploaded (same content)", up.name))
		default:
			lines = append(lines, fmt.Sprintf("✓ %s: stored as %s, searchable now", up.name, filepath.Base(up.path)))
		}
	}
	if in.Note != "" {
		lines = append(lines, in.Note)
	}
	return strings.Join(lines, "\n")
}

// uploadName is the name a chat user knows an upload by: the URL's
// fragment when the transport put the sender's file name there (a
// Telegram file URL ends in a generated file_12.pdf), else the last
// element of its path; control characters are dropped.
func uploadName(raw string) string {
	name := path.Base(raw)
	if pu, err := url.Parse(raw); err == nil {
		name = path.Base(pu.Path)
		if pu.Fragment != "" {
			name = pu.Fragment
		}
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return -1
		}
		return r
	}, name)
}

// fetch downloads one URL after checking scheme, extension, declared
// type and size; the file is named by its sha256 (so a second upload of
// the same content is recognised) and name.
func (u *Uploads) fetch(ctx context.Context, raw, name string) (string, bool, error) {
	pu, err := url.Parse(raw)
	if err != nil || pu.Host == "" {
		return "", false, errors.New("not a URL")
	}
	if err := u.checkScheme(pu); err != nil {
		return "", false, err
	}
	ext := strings.ToLower(path.Ext(pu.Path))
	switch ext {
	case ".ogg", ".oga", ".opus", ".m4a", ".mp3", ".wav", ".aac", ".webm":
		return "", false, errors.New("voice messages are not supported yet by this version")
	case ".jpg", ".jpeg", ".png", ".gif", ".webp", ".heic":
		return "", false, errors.New("images are not supported yet by this version")
	}
	types, ok := uploadTypes[ext]
	if !ok {
		return "", false, fmt.Errorf("%q files are not accepted (pdf, epub, txt, md, html, json, csv)", ext)
	}
	resp, err := u.get(ctx, raw, MaxUploadBytes)
	if err != nil {
		return "", false, err
	}
	defer resp.Body.Close()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "" && !slices.Contains(types, mt) {
		return "", false, fmt.Errorf("the server says it is %s, not a %s file", mt, ext)
	}
	if err := os.MkdirAll(u.Dir, 0o700); err != nil {
		return "", false, err
	}
	tmp, err := os.CreateTemp(u.Dir, ".upload-*")
	if err != nil {
		return "", false, err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(resp.Body, MaxUploadBytes+1))
	tmp.Close()
	if err != nil {
		return "", false, fmt.Errorf("download failed: %v", err)
	}
	if n > MaxUploadBytes {
		return "", false, fmt.Errorf("too large (over %d MB)", MaxUploadBytes>>20)
	}
	if magic, strict := uploadMagic[ext]; strict && !hasPrefix(tmp.Name(), magic) {
		return "", false, fmt.Errorf("the content is not a %s file", ext)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	base := strings.TrimSuffix(name, path.Ext(name))
	if same, _ := filepath.Glob(filepath.Join(u.Dir, sum[:16]+"-*")); len(same) > 0 {
		return same[0], true, nil
	}
	dst := filepath.Join(u.Dir, sum[:16]+"-"+sanitize(base)+ext)
	return dst, false, os.Rename(tmp.Name(), dst)
}

// get starts the guarded download of raw (https only, redirects
// checked the same way) and refuses a response declaring more than limit
// bytes; the caller still caps what it reads.
func (u *Uploads) get(ctx context.Context, raw string, limit int64) (*http.Response, error) {
	pu, err := url.Parse(raw)
	if err != nil || pu.Host == "" {
		return nil, errors.New("not a URL")
	}
	if err := u.checkScheme(pu); err != nil {
		return nil, err
	}
	var client *http.Client
	if u != nil {
		client = u.Client
	}
	if client == nil {
		client = NewGuardedClient(nil)
	}
	c := *client
	c.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		return u.checkScheme(r.URL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		var be *fetch.BlockedError
		if errors.As(err, &be) {
			return nil, fmt.Errorf("refused: %v", be)
		}
		// Without the URL: a Telegram file URL holds the bot's token.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("download failed: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("download failed: %s", resp.Status)
	}
	if resp.ContentLength > limit {
		resp.Body.Close()
		return nil, fmt.Errorf("too large (%d MB; the limit is %d MB)", resp.ContentLength>>20, limit>>20)
	}
	return resp, nil
}

// uploadMagic are the leading bytes of the strictly checked formats.
var uploadMagic = map[string]string{".pdf": "%PDF-", ".epub": "PK\x03\x04"}

func hasPrefix(file, magic string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(magic))
	_, err = io.ReadFull(f, b)
	return err == nil && string(b) == magic
}

func (u *Uploads) checkScheme(pu *url.URL) error {
	if pu.Scheme == "https" {
		return nil
	}
	if pu.Scheme == "http" && u != nil && u.AllowHTTPLoopback {
		if ip, err := netip.ParseAddr(pu.Hostname()); err == nil && ip.IsLoopback() {
			return nil
		}
	}
	return fmt.Errorf("only https:// downloads are accepted, not %s://", pu.Scheme)
}

// sanitize keeps a file name readable and safe.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), "._")
	if out == "" {
		out = "upload"
	}
	if len(out) > 64 {
		out = out[:64]
	}
	return out
}

// TextBesides is what a message carrying attachments says besides their
// URLs (the body of an XMPP OOB message repeats the URL): a question
// about the files, asked once they are in, as the original does; "" when
// nothing but the URLs and punctuation is left.
func TextBesides(body string, urls []string) string {
	for _, u := range urls {
		if u = strings.TrimSpace(u); u != "" {
			body = strings.ReplaceAll(body, u, " ")
		}
	}
	body = strings.Join(strings.Fields(body), " ")
	if strings.Trim(body, ".,;:!?()[]{}\"'`") == "" {
		return ""
	}
	return body
}
