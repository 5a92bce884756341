package main

import (
	"fmt"
	"io"
	"mime/quotedprintable"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/askygo/asky/internal/deliver/delivertest"
)

// mailSinks and httpSinks map a script's $WORK to its sinks: testscript
// Values can only be set in Setup, and most scripts need no sink.
var mailSinks, httpSinks sync.Map

// cmdMailSink starts a local SMTP sink with STARTTLS (`mailsink`, sets
// $SMTP_SINK_PORT) or prints what it received (`mailsink show`: envelope
// lines, then the quoted-printable-decoded message).
func cmdMailSink(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 1 && args[0] == "show" {
		v, ok := mailSinks.Load(ts.Getenv("WORK"))
		if !ok {
			ts.Fatalf("no mailsink running")
		}
		s := v.(*delivertest.SMTPSink)
		for _, m := range s.Mails() {
			body, _ := io.ReadAll(quotedprintable.NewReader(strings.NewReader(m.Data)))
			fmt.Fprintf(ts.Stdout(), "from: %s\nto: %s\ntls: %v\nuser: %s\n%s\n", m.From, strings.Join(m.To, ","), m.TLS, m.User, body)
		}
		return
	}
	s, err := delivertest.NewSMTPSink()
	ts.Check(err)
	ts.Defer(s.Close)
	ts.Setenv("SMTP_SINK_PORT", strconv.Itoa(s.Port()))
	mailSinks.Store(ts.Getenv("WORK"), s)
	ts.Defer(func() { mailSinks.Delete(ts.Getenv("WORK")) })
}

// httpSink records requests.
type httpSink struct {
	mu   sync.Mutex
	reqs []string
}

// cmdHTTPSink starts a local HTTP sink (`httpsink`, sets $HTTP_SINK_URL)
// or prints the requests it received (`httpsink show`).
func cmdHTTPSink(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 1 && args[0] == "show" {
		v, ok := httpSinks.Load(ts.Getenv("WORK"))
		if !ok {
			ts.Fatalf("no httpsink running")
		}
		h := v.(*httpSink)
		h.mu.Lock()
		defer h.mu.Unlock()
		fmt.Fprint(ts.Stdout(), strings.Join(h.reqs, "\n"))
		return
	}
	h := &httpSink{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.reqs = append(h.reqs, fmt.Sprintf("%s %s\nauthorization: %s\ncontent-type: %s\n%s", r.Method, r.URL.RequestURI(), r.Header.Get("Authorization"), r.Header.Get("Content-Type"), b))
		h.mu.Unlock()
	}))
	ts.Defer(srv.Close)
	httpSinks.Store(ts.Getenv("WORK"), h)
	ts.Defer(func() { httpSinks.Delete(ts.Getenv("WORK")) })
	ts.Setenv("HTTP_SINK_URL", srv.URL)
}
