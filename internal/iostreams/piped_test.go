package iostreams

import (
	"io"
	"strings"
	"testing"
	"time"
)

// yes is `yes`: an endless stream of "y\n".
type yes struct{}

func (yes) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "y\n"[i%2]
	}
	return len(p), nil
}

func TestReadPipedStopsAtTheCapOfAnEndlessStream(t *testing.T) {
	done := make(chan struct{})
	var got []byte
	var why PipedStop
	go func() {
		got, why, _ = ReadPiped(yes{}, 100<<10, time.Hour)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("`yes | asky` still reading after 5s")
	}
	if why != PipedCap || len(got) != 100<<10+1 {
		t.Fatalf("why %v, %d bytes", why, len(got))
	}
}

func TestReadPipedStopsWhenAFollowedFileGoesQuiet(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = pw.Write([]byte("line 1\nline 2\n")) }() // then nothing, never EOF: tail -f
	start := time.Now()
	got, why, err := ReadPiped(pr, 100<<10, 50*time.Millisecond)
	if err != nil || why != PipedIdle || string(got) != "line 1\nline 2\n" {
		t.Fatalf("%q %v %v", got, why, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %s", d)
	}
}

func TestReadPipedReadsToEOF(t *testing.T) {
	got, why, err := ReadPiped(strings.NewReader("all of it"), 100, time.Hour)
	if err != nil || why != PipedEOF || string(got) != "all of it" {
		t.Fatalf("%q %v %v", got, why, err)
	}
	if got, why, _ := ReadPiped(strings.NewReader(strings.Repeat("x", 101)), 100, time.Hour); why != PipedCap || len(got) != 101 {
		t.Fatalf("exactly over the cap: %d %v", len(got), why)
	}
}
