package query

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/iostreams"
)

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "y\n"[i%2]
	}
	return len(p), nil
}

// `yes | asky x` and `tail -f log | asky …` used to hang forever: stdin
// was read to EOF, and past the cap it was drained to EOF too.
func TestEndlessStdinDoesNotHang(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	ios.In = endless{}
	type result struct {
		in, notice string
		err        error
	}
	done := make(chan result, 1)
	go func() {
		in, notice, err := readStdin(&Options{IO: ios}, 100<<10)
		done <- result{in, notice, err}
	}()
	select {
	case r := <-done:
		if r.err != nil || len(r.in) != 100<<10 || !strings.Contains(r.notice, "only the first 100 KB") {
			t.Fatalf("%d bytes, notice %q, err %v", len(r.in), r.notice, r.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("yes | asky hangs")
	}

	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = pw.Write([]byte("ERROR disk full\n")) }()
	ios.In = pr
	go func() {
		in, notice, err := readStdin(&Options{IO: ios}, 100<<10)
		done <- result{in, notice, err}
	}()
	select {
	case r := <-done:
		if r.err != nil || r.in != "ERROR disk full\n" || !strings.Contains(r.notice, "stdin paused") {
			t.Fatalf("%q, notice %q, err %v", r.in, r.notice, r.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("tail -f log | asky hangs")
	}
}

// A pipe nobody writes to (a script, ssh, a `while read` loop) looked
// like a hang: asky waited silently for the first byte.
func TestSilentStdinSaysItWaits(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	pr, pw := io.Pipe()
	ios.In = pr
	go func() {
		time.Sleep(300 * time.Millisecond)
		_, _ = pw.Write([]byte("late"))
		pw.Close()
	}()
	in, _, err := readStdin(&Options{IO: ios, StdinWait: 50 * time.Millisecond}, 100<<10)
	if err != nil || in != "late" {
		t.Fatalf("%q, %v", in, err)
	}
	if !strings.Contains(errOut.String(), "notice: waiting for piped stdin") || !strings.Contains(errOut.String(), "</dev/null") {
		t.Fatalf("stderr %q", errOut)
	}

	// Input that arrives in time gets no notice.
	ios, _, _, errOut = iostreams.Test()
	ios.In = strings.NewReader("at once")
	if in, _, _ := readStdin(&Options{IO: ios, StdinWait: 50 * time.Millisecond}, 100<<10); in != "at once" || errOut.Len() != 0 {
		t.Fatalf("%q, stderr %q", in, errOut)
	}
}
