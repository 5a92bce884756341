package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/cli/corpus"
	"github.com/askygo/asky/internal/research"
)

// deepAPI is a fake Ollama /api/embed serving the deep tier: it answers
// the canary probe at once and holds every chunk batch from the n-th on
// (hold; 0 holds none) until the request is cancelled, like a deep model
// taking hours over a big corpus.
type deepAPI struct {
	srv     *httptest.Server
	hold    int
	mu      sync.Mutex
	batches int
	held    chan struct{} // one send per held batch
}

func newDeepAPI(t *testing.T, hold int) *deepAPI {
	t.Helper()
	d := &deepAPI{hold: hold, held: make(chan struct{}, 16)}
	d.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/api/embed" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if len(req.Input) != 1 || req.Input[0] != research.CanaryText {
			d.mu.Lock()
			d.batches++
			n := d.batches
			d.mu.Unlock()
			if d.hold > 0 && n >= d.hold {
				d.held <- struct{}{}
				<-r.Context().Done()
				return
			}
		}
		vecs := make([][]float32, len(req.Input))
		for i, s := range req.Input {
			h := fnv.New64a()
			h.Write([]byte(s))
			x := h.Sum64()
			vecs[i] = []float32{1, float32(x&0xff) + 1, float32(x>>8&0xff) + 1, float32(x>>16&0xff) + 1}
		}
		json.NewEncoder(w).Encode(map[string]any{"embeddings": vecs})
	}))
	t.Cleanup(d.srv.Close)
	return d
}

// config is the [research.deep] section naming this server.
func (d *deepAPI) config() string {
	return fmt.Sprintf("\n[research.deep]\nprovider = \"ollama\"\nmodel = \"slow-deep\"\nbase_url = %q\n", d.srv.URL)
}

// chunkBatches is how many chunk batches the server was sent.
func (d *deepAPI) chunkBatches() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.batches
}

// ingestNoDeep runs `asky corpus ingest --no-deep` over n small documents,
// leaving their deep vectors to be filled.
func ingestNoDeep(t *testing.T, w *world, n int) {
	t.Helper()
	docs := filepath.Join(t.TempDir(), "docs")
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		body := fmt.Sprintf("# Note %d\n\nThe archive keeps entry number %d about tidal gauges.\n", i, i)
		if err := os.WriteFile(filepath.Join(docs, fmt.Sprintf("n%03d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := corpus.NewCmdCorpus(w.f)
	cmd.SetArgs([]string{"ingest", "--no-deep", docs})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("ingest: %v\n%s", err, w.stderr)
	}
}

// A document sent in a chat is answered for as soon as it is searchable:
// the deep tier of the corpus (here 40 chunks that a deep model would
// take forever over) is left to the background fill, which the upload
// wakes, and the ack speaks to a chat user, not to a CLI one.
func TestTelegramUploadDoesNotWaitForTheDeepTier(t *testing.T) {
	deep := newDeepAPI(t, 1) // every chunk batch hangs
	w := newWorld(t, deep.config())
	ingestNoDeep(t, w, 40)
	w.wake = newDeepWake()
	api := newBotAPI(t)
	// Telegram names the file by its own file_path; the ack uses the
	// sender's name.
	api.files = map[string]string{"documents/file_7.md": "# Quokka field notes\n\nOn Rottnest Island the quokkas sleep through the day under Acacia rostellifera.\n"}
	startTelegram(t, w, api)

	api.push(1, map[string]any{"document": map[string]any{"file_id": "documents/file_7.md", "file_unique_id": "u1", "file_name": "quokka notes.md"}})
	ack := api.waitSent(t, w, "quokka notes.md")
	if !strings.HasPrefix(ack, "✓ quokka notes.md: stored as ") || !strings.Contains(ack, "-quokka_notes.md, searchable now") ||
		!strings.Contains(ack, "Linked to this chat") || strings.Contains(ack, "file_7") {
		t.Fatalf("ack %q", ack)
	}
	if strings.Contains(ack, "corpus embed") || strings.Contains(ack, "deep tier") {
		t.Fatalf("the ack speaks of the CLI's deep pass: %q", ack)
	}
	if n := deep.chunkBatches(); n != 0 {
		t.Fatalf("the upload sent %d chunk batches to the deep model", n)
	}
	select {
	case <-w.wake:
	default:
		t.Fatal("the upload did not wake the background deep fill")
	}
	// Searchable at once: keywords and the fast semantic tier.
	cfg, _ := w.f.Config()
	st, _ := w.f.Store()
	ix, err := corpus.NewIndex(cfg, st, w.f)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	hits, err := ix.Search(context.Background(), "where do quokkas sleep", research.SearchOptions{TopK: 3})
	if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Text, "Acacia rostellifera") {
		t.Fatalf("search after the upload: %v %+v", err, hits)
	}
}

// An upload's wake starts the background fill at once, not at the next
// minute's check.
func TestUploadWakesTheDeepFill(t *testing.T) {
	f, cfg := deepWorld(t)
	wake := newDeepWake()
	lines := make(chan string, 8)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		fillDeepLoop(ctx, f, cfg, nil, wake, func(l string) { lines <- l })
	}()
	t.Cleanup(func() { cancel(); <-done })
	next := func() string {
		select {
		case l := <-lines:
			return l
		case <-time.After(15 * time.Second):
			t.Fatal("no deep pass within 15s")
		}
		return ""
	}
	if l := next(); !strings.HasPrefix(l, "deep tier: embedded 2 chunks") {
		t.Fatalf("first pass: %q", l)
	}
	u := uploads(&RunOptions{IO: f.IO, Config: f.Config, Factory: f}, cfg, wake)
	if err := os.MkdirAll(u.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// Each upload's pass is logged, though both read the same.
	for i, name := range []string{"abc-notes.md", "def-more.md"} {
		p := filepath.Join(u.Dir, name)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("# Notes %d\n\nUpload %d is about quokkas.\n", i, i)), 0o600); err != nil {
			t.Fatal(err)
		}
		if res := u.Ingest(ctx, "", []string{p}); len(res.Failed) > 0 {
			t.Fatalf("%+v", res)
		}
		if l := next(); !strings.HasPrefix(l, "deep tier: embedded 1 chunks in ") {
			t.Fatalf("after upload %d: %q", i, l)
		}
	}
}

// Stopping the daemon during a deep fill logs how far the fill got
// before the line that says the daemon stopped.
func TestRunLogsTheDeepFillBeforeItStops(t *testing.T) {
	deep := newDeepAPI(t, 2) // the first batch of 32 is embedded, the second hangs
	w := newWorld(t, "\n[daemon.http]\nlisten = \"127.0.0.1:0\"\nallow_no_token = true\n"+deep.config())
	ingestNoDeep(t, w, 40)
	_, stop := w.serve(t)
	select {
	case <-deep.held:
	case <-time.After(15 * time.Second):
		t.Fatalf("the fill never reached its second batch\n%s", w.stderr)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	log := w.stderr.String()
	fill, stopped := strings.Index(log, "s (stopped; the next start goes on)"), strings.Index(log, "asky daemon stopped")
	if fill < 0 || stopped < 0 || fill > stopped || !strings.Contains(log, "deep tier: embedded 32 chunks in ") {
		t.Fatalf("want the fill's line before the stop line:\n%s", log)
	}
}

// A document that cannot be ingested (a PDF that does not parse) gets one
// line saying why, and leaves nothing behind: no file under uploads, no
// corpus source, no recorded failure, no link to the chat. The good
// document of the same message is ingested and linked alone.
func TestTelegramUploadThatFailsLeavesNothing(t *testing.T) {
	w := newWorld(t, "\n[research.deep]\nprovider = \"off\"\n")
	api := newBotAPI(t)
	api.files = map[string]string{"documents/broken.pdf": "%PDF-1.4\nthis is no PDF body at all\n"}
	chat := startTelegram(t, w, api)

	api.push(1, map[string]any{"document": map[string]any{"file_id": "documents/broken.pdf", "file_unique_id": "u1", "file_name": "broken.pdf"}})
	ack := api.waitSent(t, w, "broken.pdf")
	if !strings.HasPrefix(ack, "✗ broken.pdf: ") || strings.Contains(ack, "\n") || strings.Contains(ack, "stored as") {
		t.Fatalf("want one line saying why, got %q", ack)
	}
	if entries, _ := os.ReadDir(chat.Uploads.Dir); len(entries) != 0 {
		t.Fatalf("left under uploads: %v", entries)
	}
	ctx := context.Background()
	st, _ := w.f.Store()
	if srcs, err := st.ListCorpusSources(ctx); err != nil || len(srcs) != 0 {
		t.Fatalf("sources %+v %v", srcs, err)
	}
	if fails, err := st.CorpusFailures(ctx); err != nil || len(fails) != 0 {
		t.Fatalf("recorded failures %v %v", fails, err)
	}
	if s, err := st.SessionByName(ctx, "telegram:42"); err == nil && s.Defaults.Research != nil {
		t.Fatalf("linked: %q", *s.Defaults.Research)
	}

	// Too large by its declared size: refused before any download (bots
	// download at most 20 MB from Telegram).
	api.push(2, map[string]any{"document": map[string]any{"file_id": "documents/big.pdf", "file_unique_id": "u2", "file_name": "big.pdf", "file_size": 30 << 20}})
	if ack := api.waitSent(t, w, "big.pdf"); ack != "✗ big.pdf: too large (30 MB; the limit is 20 MB)" {
		t.Fatalf("ack %q", ack)
	}

	// Two in one message (XMPP-style URLs): the good one alone goes in.
	files := api.srv.URL + "/file/bot123:abc/documents/"
	api.files["documents/good.md"] = "# Good\n\nThe wombat digs burrows.\n"
	out := &lines{}
	chat.Upload(ctx, "telegram:42", []string{files + "broken.pdf", files + "good.md"}, out)
	got := strings.Split(out.final, "\n")
	if len(got) != 3 || !strings.HasPrefix(got[0], "✗ broken.pdf: ") || !strings.Contains(got[1], "✓ good.md: stored as") ||
		!strings.Contains(got[2], "Linked to this chat") || out.failed {
		t.Fatalf("reply %q (failed %v)", out.final, out.failed)
	}
	entries, _ := os.ReadDir(chat.Uploads.Dir)
	if len(entries) != 1 || !strings.HasSuffix(entries[0].Name(), "-good.md") {
		t.Fatalf("under uploads: %v", entries)
	}
	s, err := st.SessionByName(ctx, "telegram:42")
	if err != nil || s.Defaults.Research == nil || strings.Contains(*s.Defaults.Research, "broken") {
		t.Fatalf("session %+v %v", s, err)
	}
}

// lines is a daemon.ChatOutput keeping the final reply.
type lines struct {
	final  string
	failed bool
}

func (l *lines) Status(context.Context, string)                    {}
func (l *lines) Final(_ context.Context, text string, failed bool) { l.final, l.failed = text, failed }
