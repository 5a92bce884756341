package daemon

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

// Every turn counts in Busy while it runs, one-shot or in a
// conversation, and Idle waits for the last one.
func TestServiceTurnsKeepBusy(t *testing.T) {
	g := newGateRunner()
	s := NewService(g, 0)
	b := s.Busy()
	if err := b.Idle(context.Background()); err != nil || b.InFlight() != 0 {
		t.Fatalf("a new service: Idle %v, %d in flight", err, b.InFlight())
	}
	done := make(chan error, 2)
	for _, a := range []Ask{{Question: "one-shot"}, {Conversation: "c", Question: "in a chat"}} {
		go func() {
			_, err := s.Ask(context.Background(), a)
			done <- err
		}()
		waitEntered(t, g, a.Question)
	}
	if b.InFlight() != 2 {
		t.Fatalf("%d turns in flight, want 2", b.InFlight())
	}
	waitIdle := make(chan error, 1)
	go func() { waitIdle <- b.Idle(context.Background()) }()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	g.gate <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// One turn still runs: Idle has not returned, and a caller that
	// stops waiting gets its context's error.
	if err := b.Idle(cancelled); err != context.Canceled || b.InFlight() != 1 {
		t.Fatalf("one turn left: Idle = %v with %d in flight; want context.Canceled, 1", err, b.InFlight())
	}
	select {
	case err := <-waitIdle:
		t.Fatalf("Idle returned %v with a turn in flight", err)
	default:
	}
	g.gate <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-waitIdle; err != nil || b.InFlight() != 0 {
		t.Fatalf("after the last turn: Idle %v, %d in flight", err, b.InFlight())
	}
}

// end may be called twice (a deferred call after an early one) without
// counting a turn twice.
func TestBusyEndOnce(t *testing.T) {
	var b Busy
	end1, end2 := b.Begin(), b.Begin()
	end1()
	end1()
	if b.InFlight() != 1 {
		t.Fatalf("%d in flight after one end called twice, want 1", b.InFlight())
	}
	end2()
	if err := b.Idle(context.Background()); err != nil || b.InFlight() != 0 {
		t.Fatalf("Idle %v, %d in flight", err, b.InFlight())
	}
}

// A chat upload is waited for like a turn: its ingest counts in Busy.
func TestChatUploadKeepsBusy(t *testing.T) {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		w.Write([]byte("# Notes\n\nuploaded text\n"))
	}))
	defer ts.Close()
	tlsCfg := ts.Client().Transport.(*http.Transport).TLSClientConfig
	c := &Chat{Service: NewService(newGateRunner(), 0)}
	inFlight := -1
	c.Uploads = &Uploads{Dir: t.TempDir(), Client: NewGuardedClient(tlsCfg, netip.MustParsePrefix("127.0.0.1/32")),
		Ingest: func(context.Context, string, []string) Ingested {
			inFlight = c.Service.Busy().InFlight()
			return Ingested{}
		}}
	out := newRecorder()
	c.Upload(context.Background(), "xmpp:a@b", []string{ts.URL + "/notes.md"}, out)
	<-out.done
	if inFlight != 1 || c.Service.Busy().InFlight() != 0 {
		t.Fatalf("%d in flight during the ingest, %d after; want 1, 0 (%s)", inFlight, c.Service.Busy().InFlight(), out.final)
	}
}
