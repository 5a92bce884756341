package daemon

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/daemon"
)

// An XMPP server that is down never stops the HTTP API; the status file
// shows XMPP reconnecting with its last error.
func TestFailingTransportDoesNotStopOthers(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	w := newWorld(t, "\n[daemon.http]\nlisten = \"127.0.0.1:0\"\nallow_no_token = true\n\n[xmpp]\nenabled = true\njid = \"bot@localhost\"\nhost = \"127.0.0.1\"\nport = "+itoa(dead)+"\n")
	w.env["ASKY_XMPP_PASSWORD"] = "pw"
	url, _ := w.serve(t)
	if code, body := post(t, url+"/v1/ask", "", `{"question":"still there?"}`); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	cfg, _ := w.f.Config()
	deadline := time.Now().Add(10 * time.Second)
	for {
		states, _ := daemon.LoadStates(daemon.StatesPath(pidPath(cfg)))
		var x, h daemon.TransportState
		for _, s := range states {
			switch s.Name {
			case "xmpp":
				x = s
			case "http":
				h = s
			}
		}
		// Lower-cased: Windows says "Connection refused."
		if x.State == daemon.StateReconnecting && strings.Contains(strings.ToLower(x.LastError), "connection refused") && h.State == daemon.StateListening {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("states %+v", states)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestRunRefusesMissingSecretsAndNoTransport(t *testing.T) {
	for name, tc := range map[string]struct{ cfg, want string }{
		"xmpp password":  {"\n[daemon.http]\nlisten = \"127.0.0.1:0\"\nallow_no_token = true\n[xmpp]\nenabled = true\njid = \"bot@localhost\"\n", "no XMPP password"},
		"telegram token": {"\n[daemon.http]\nlisten = \"127.0.0.1:0\"\nallow_no_token = true\n[daemon.telegram]\nenabled = true\nallowed_users = [1]\n", "no Telegram bot token"},
		"nothing":        {"\n[daemon.http]\nenabled = false\n", "no transport is enabled"},
	} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t, tc.cfg)
			err := runRun(context.Background(), &RunOptions{IO: w.f.IO, Config: w.f.Config, Factory: w.f})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Chat uploads land under the first document root and go through the
// CLI's own corpus ingestion.
func TestUploadsIngestIntoTheCorpus(t *testing.T) {
	w := newWorld(t, "\n[research]\nlocal_document_roots = [\"~/docs\"]\n")
	cfg, _ := w.f.Config()
	u := uploads(&RunOptions{IO: w.f.IO, Config: w.f.Config, Factory: w.f}, cfg, nil)
	if want := filepath.Join(w.home, "docs", "uploads"); u.Dir != want {
		t.Fatalf("dir %s, want %s", u.Dir, want)
	}
	os.MkdirAll(u.Dir, 0o700)
	p := filepath.Join(u.Dir, "abc-notes.md")
	os.WriteFile(p, []byte("# Notes\n\nThe daemon ingested this upload about quokkas.\n"), 0o600)
	if res := u.Ingest(context.Background(), "xmpp:a@b", []string{p}); len(res.Failed) > 0 || !strings.Contains(res.Note, "Linked to this chat") {
		t.Fatalf("%+v", res)
	}
	st, _ := w.f.Store()
	srcs, err := st.ListCorpusSources(context.Background())
	if err != nil || len(srcs) != 1 {
		t.Fatalf("sources %+v %v", srcs, err)
	}
}

// A transport's last error may quote a server: status prints it without
// the terminal escapes it carries.
func TestStatusLastErrorIsSanitized(t *testing.T) {
	now := time.Now()
	got := stateLine(daemon.TransportState{Name: "xmpp", State: daemon.StateReconnecting, LastError: "stream error: \x1b]52;c;ZXZpbA==\x07gone", LastErrorAt: now.Add(-2 * time.Second)}, now)
	if strings.ContainsAny(got, "\x1b\x07") || !strings.Contains(got, "last error 2s ago: stream error: ]52;c;ZXZpbA==gone") {
		t.Fatalf("%q", got)
	}
}
