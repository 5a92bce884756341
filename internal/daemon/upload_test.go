package daemon

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/askygo/asky/internal/turn"
)

func TestUploads(t *testing.T) {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/notes.md", "/copy.md":
			w.Header().Set("Content-Type", "text/markdown")
			w.Write([]byte("# Notes\n\nuploaded text\n"))
		case "/huge.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Header().Set("Content-Length", "1073741824")
			w.WriteHeader(200)
			w.Write([]byte("%PDF-1.4"))
			// The client must give up on the declared size, not read 1 GB.
		case "/fake.pdf":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>"))
		case "/binary.pdf":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write([]byte("MZ not a pdf"))
		case "/redirect.md":
			http.Redirect(w, r, "https://169.254.169.254/latest.md", http.StatusFound)
		}
	}))
	defer ts.Close()
	tlsCfg := ts.Client().Transport.(*http.Transport).TLSClientConfig
	dir := t.TempDir()
	var mu sync.Mutex
	var ingested []string
	u := &Uploads{Dir: dir, Client: NewGuardedClient(tlsCfg, netip.MustParsePrefix("127.0.0.1/32")),
		Ingest: func(_ context.Context, conv string, paths []string) Ingested {
			mu.Lock()
			defer mu.Unlock()
			ingested = append(ingested, paths...)
			return Ingested{Note: "ingested " + conv}
		}}
	ctx := context.Background()
	reply := u.Handle(ctx, "xmpp:a@b", []string{ts.URL + "/notes.md", ts.URL + "/huge.pdf", ts.URL + "/fake.pdf",
		ts.URL + "/redirect.md", ts.URL + "/tool.exe", ts.URL + "/binary.pdf", ts.URL + "/voice.ogg", strings.Replace(ts.URL, "https", "http", 1) + "/notes.md"})
	for _, want := range []string{"✓ notes.md: stored as", "✗ huge.pdf: too large (1024 MB", "✗ fake.pdf: the server says it is text/html",
		"✗ redirect.md: refused", `✗ tool.exe: ".exe" files are not accepted`, "only https://", "ingested xmpp:a@b", "✗ binary.pdf: the content is not a .pdf file", "✗ voice.ogg: voice messages are not supported yet"} {
		if !strings.Contains(reply, want) {
			t.Errorf("reply lacks %q:\n%s", want, reply)
		}
	}
	if len(ingested) != 1 || !strings.HasSuffix(ingested[0], "-notes.md") {
		t.Fatalf("ingested %v", ingested)
	}
	b, _ := os.ReadFile(ingested[0])
	if string(b) != "# Notes\n\nuploaded text\n" {
		t.Fatalf("stored %q", b)
	}
	if reply := u.Handle(ctx, "xmpp:a@b", []string{ts.URL + "/copy.md"}); !strings.Contains(reply, "already uploaded") {
		t.Fatalf("dedupe: %s", reply)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("files %v", entries)
	}
	many := make([]string, 11)
	if reply := u.Handle(ctx, "c", many); !strings.Contains(reply, "at most 10") {
		t.Fatal(reply)
	}
	if reply := (&Uploads{}).Handle(ctx, "c", []string{ts.URL}); !strings.Contains(reply, "local_document_roots") {
		t.Fatal(reply)
	}
}

// A stored file the ingester could not take gets one line saying why
// (not "stored as" and then an error) and is deleted, so nothing is left
// half-uploaded; the reply is a failure unless some file went in.
func TestUploadIngestFailureLeavesNothing(t *testing.T) {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF-1.4 " + r.URL.Path))
	}))
	defer ts.Close()
	tlsCfg := ts.Client().Transport.(*http.Transport).TLSClientConfig
	dir := t.TempDir()
	c := &Chat{Service: NewService(newGateRunner(), 0)}
	c.Uploads = &Uploads{Dir: dir, Client: NewGuardedClient(tlsCfg, netip.MustParsePrefix("127.0.0.1/32")),
		Ingest: func(_ context.Context, _ string, paths []string) Ingested {
			in := Ingested{Failed: map[string]string{}}
			for _, p := range paths {
				if strings.Contains(p, "broken") {
					in.Failed[p] = "corrupt PDF (a=b)"
				}
			}
			return in
		}}
	out := newRecorder()
	c.Upload(context.Background(), "xmpp:a@b", []string{ts.URL + "/broken.pdf"}, out)
	<-out.done
	if out.final != "✗ broken.pdf: corrupt PDF (a=b)" || !out.failed {
		t.Fatalf("reply %q (failed %v)", out.final, out.failed)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
	out = newRecorder()
	c.Upload(context.Background(), "xmpp:a@b", []string{ts.URL + "/broken.pdf", ts.URL + "/fine.pdf"}, out)
	<-out.done
	if !strings.HasPrefix(out.final, "✗ broken.pdf: corrupt PDF") || !strings.Contains(out.final, "\n✓ fine.pdf: stored as ") || out.failed {
		t.Fatalf("reply %q (failed %v)", out.final, out.failed)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 || !strings.HasSuffix(entries[0].Name(), "-fine.pdf") {
		t.Fatalf("kept %v", entries)
	}
	// A resend failing for a passing reason (the store was locked) keeps
	// the file an earlier upload put in the corpus.
	c.Uploads.Ingest = func(_ context.Context, _ string, paths []string) Ingested {
		return Ingested{Failed: map[string]string{paths[0]: "not ingested: database is locked"}}
	}
	out = newRecorder()
	c.Upload(context.Background(), "xmpp:a@b", []string{ts.URL + "/fine.pdf"}, out)
	<-out.done
	if out.final != "✗ fine.pdf: not ingested: database is locked" || !out.failed {
		t.Fatalf("reply %q (failed %v)", out.final, out.failed)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("the earlier upload's file was deleted: %v", entries)
	}
}

// A download that fails says why without its URL: a Telegram file URL
// holds the bot's token.
func TestUploadDownloadErrorHidesTheURL(t *testing.T) {
	u := &Uploads{Dir: t.TempDir(), AllowHTTPLoopback: true, Client: &http.Client{},
		Ingest: func(context.Context, string, []string) Ingested { t.Fatal("nothing to ingest"); return Ingested{} }}
	reply := u.Handle(context.Background(), "telegram:1", []string{"http://127.0.0.1:1/file/bot123:SECRET/documents/file_3.md#notes.md"})
	if !strings.HasPrefix(reply, "✗ notes.md: download failed: ") || strings.Contains(reply, "SECRET") || strings.Contains(reply, "\n") {
		t.Fatalf("reply %q", reply)
	}
}

// A .toml file sent to the chat sets the session's overrides, as a
// ```toml block does (the original's uploaded general.toml / user.toml);
// one with another key or too large is refused, and documents sent with
// it are still stored.
func TestUploadedTOMLSetsOverrides(t *testing.T) {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/general.toml":
			w.Write([]byte("[general]\ndefault_model = \"fast\"\n"))
		case "/bad.toml":
			w.Write([]byte("[general]\nmax_turns = 3\n"))
		case "/big.toml":
			w.Write([]byte("# " + strings.Repeat("x", MaxOverrideBytes)))
		case "/notes.md":
			w.Header().Set("Content-Type", "text/markdown")
			w.Write([]byte("# Notes\n"))
		}
	}))
	defer ts.Close()
	tlsCfg := ts.Client().Transport.(*http.Transport).TLSClientConfig
	var model string
	c := &Chat{Service: NewService(runnerFn(func(_ context.Context, a Ask) (*turn.Result, error) {
		model = a.Model
		return &turn.Result{Answer: "ok"}, nil
	}), 0), Uploads: &Uploads{Dir: t.TempDir(), Client: NewGuardedClient(tlsCfg, netip.MustParsePrefix("127.0.0.1/32")),
		Ingest: func(context.Context, string, []string) Ingested { return Ingested{} }}}
	ctx := context.Background()
	rec := newRecorder()
	c.Upload(ctx, "xmpp:a@b", []string{ts.URL + "/bad.toml", ts.URL + "/big.toml", ts.URL + "/notes.md"}, rec)
	for _, want := range []string{"✗ bad.toml: max_turns cannot be overridden", "✗ big.toml: too large", "✓ notes.md: stored as"} {
		if !strings.Contains(rec.final, want) {
			t.Errorf("reply lacks %q:\n%s", want, rec.final)
		}
	}
	rec = newRecorder()
	c.Upload(ctx, "xmpp:a@b", []string{ts.URL + "/general.toml"}, rec)
	if rec.failed || !strings.Contains(rec.final, `✓ general.toml: override set for this chat's session: default_model = "fast"`) {
		t.Fatalf("%+v", rec)
	}
	c.Handle(ctx, ChatMessage{Conversation: "xmpp:a@b", Text: "which model?"}, newRecorder())
	if model != "fast" {
		t.Fatalf("the uploaded override did not reach the ask: %q", model)
	}
}
