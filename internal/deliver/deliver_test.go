package deliver

import (
	"context"
	"encoding/json"
	"io"
	"mime/quotedprintable"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/deliver/delivertest"
)

func sink(t *testing.T) (*delivertest.SMTPSink, config.Email) {
	t.Helper()
	s, err := delivertest.NewSMTPSink()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, config.Email{SMTPHost: "127.0.0.1", SMTPPort: s.Port(), SMTPUseTLS: true, FromAddress: "asky@example.org", InsecureSkipVerify: true}
}

func TestSendMailSTARTTLS(t *testing.T) {
	s, e := sink(t)
	md := "# Go 1.26\n\n![x](https://tracker.example/p.png)\n\n```go\nfunc main() {}\n```\n"
	m := Message{To: []string{"a@example.org", "b@example.org"}, Subject: Subject(md, "q"), Markdown: md}
	if err := SendMail(context.Background(), e, "me", "s3cret", m); err != nil {
		t.Fatal(err)
	}
	got := s.Mails()
	if len(got) != 1 {
		t.Fatalf("mails: %d", len(got))
	}
	g := got[0]
	body, _ := io.ReadAll(quotedprintable.NewReader(strings.NewReader(g.Data)))
	if !g.TLS || g.User != "me" || g.Pass != "s3cret" || g.From != "asky@example.org" || len(g.To) != 2 {
		t.Errorf("envelope: %+v", g)
	}
	for _, want := range []string{"Subject: Go 1.26", "multipart/alternative", "text/html", "<h1>Go 1.26</h1>", `class="img"`, "<span style="} {
		if !strings.Contains(string(body), want) {
			t.Errorf("message lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(string(body), "<img") {
		t.Error("message loads a remote image")
	}
}

func TestSendMailRefusesPlainText(t *testing.T) {
	s, e := sink(t)
	s.NoSTARTTLS = true
	err := SendMail(context.Background(), e, "me", "pw", Message{To: []string{"a@example.org"}, Subject: "s", Markdown: "x"})
	if err == nil || !strings.Contains(err.Error(), "does not offer STARTTLS") || len(s.Mails()) != 0 {
		t.Fatalf("err %v, mails %d", err, len(s.Mails()))
	}
	e.SMTPHost = ""
	if err := SendMail(context.Background(), e, "", "", Message{}); err == nil || !strings.Contains(err.Error(), "smtp_host") {
		t.Fatalf("no host: %v", err)
	}
	if _, err := ParseRecipients("a@x.org, not an address"); err == nil {
		t.Error("bad address accepted")
	}
	if err := SendMail(context.Background(), config.Email{SMTPHost: "127.0.0.1", SMTPPort: 1, FromAddress: "a@b.c"}, "", "", Message{To: []string{"a@b.c"}, Subject: "x\r\nBcc: evil@x"}); err == nil {
		t.Error("header injection in subject accepted")
	}
}

func TestPush(t *testing.T) {
	var got struct {
		method, query, auth, ctype, ua string
		body                           map[string]any
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.method, got.query, got.auth, got.ctype, got.ua = r.Method, r.URL.RawQuery, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), r.Header.Get("User-Agent")
		got.body = nil
		_ = json.NewDecoder(r.Body).Decode(&got.body)
	}))
	defer srv.Close()
	env := map[string]string{"HOOK_TOKEN": "Bearer t0k", "TEAM": "blue"}
	getenv := func(k string) string { return env[k] }
	a := Answer{Query: "q?", Answer: "# A", Model: "m", Timestamp: time.Unix(0, 0), HistoryID: 4, Sources: []string{"https://x.org"}}
	eps := map[string]config.PushEndpoint{
		"plain":  {URL: srv.URL + "/in", Headers: map[string]string{"Authorization_env": "HOOK_TOKEN"}},
		"fields": {URL: srv.URL + "/f", Method: "get", Fields: map[string]any{"text": "${answer}", "who": "${user}", "team_env": "TEAM", "v": int64(2)}},
	}
	spec, _ := ParsePushSpec("plain?tag=x")
	if _, err := Push(context.Background(), srv.Client(), "asky-go", eps, spec, a, getenv); err != nil {
		t.Fatal(err)
	}
	if got.method != "POST" || got.auth != "Bearer t0k" || got.ctype != "application/json" || got.ua != "asky-go" ||
		got.body["answer"] != "# A" || got.body["query"] != "q?" || got.body["tag"] != "x" || got.body["history_id"] != float64(4) {
		t.Errorf("post: %+v", got)
	}
	spec, _ = ParsePushSpec("fields?user=ann")
	if _, err := Push(context.Background(), srv.Client(), "asky-go", eps, spec, a, getenv); err != nil {
		t.Fatal(err)
	}
	if got.method != "GET" || !strings.Contains(got.query, "who=ann") || !strings.Contains(got.query, "team=blue") || !strings.Contains(got.query, "text=%23+A") {
		t.Errorf("get: %+v", got)
	}
	spec, _ = ParsePushSpec("fields")
	if _, err := Push(context.Background(), srv.Client(), "asky-go", eps, spec, a, getenv); err == nil || !strings.Contains(err.Error(), "?user=") {
		t.Errorf("missing param: %v", err)
	}
	spec, _ = ParsePushSpec("nope")
	if _, err := Push(context.Background(), srv.Client(), "asky-go", eps, spec, a, getenv); err == nil || !strings.Contains(err.Error(), "fields, plain") {
		t.Errorf("unknown endpoint: %v", err)
	}
}
