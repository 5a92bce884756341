package termbg

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPty returns a pseudo-terminal pair that is not this process's
// controlling terminal.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pty: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// A terminal that never answers costs at most the timeout (termenv waited
// 5 s), and the background is taken as dark.
func TestQuerySilentTerminal(t *testing.T) {
	m, s := openPty(t)
	sent := make(chan string, 1)
	go func() {
		buf := make([]byte, 64)
		n, _ := m.Read(buf)
		sent <- string(buf[:n])
	}()
	t0 := time.Now()
	dark, ok := askDark(s, 200*time.Millisecond)
	if d := time.Since(t0); ok || d > 2*time.Second {
		t.Fatalf("askDark = %v, %v after %v; want no answer within the timeout", dark, ok, d)
	}
	if q := <-sent; !strings.Contains(q, "\x1b]11;?") || !strings.Contains(q, "\x1b[6n") {
		t.Fatalf("sent %q", q)
	}
}

// A light terminal's answer is read, and the terminal's mode is restored.
func TestQueryLightTerminal(t *testing.T) {
	m, s := openPty(t)
	before, err := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		buf := make([]byte, 64)
		m.Read(buf)
		m.Write([]byte("\x1b]11;rgb:ffff/ffff/ffff\x1b\\"))
		time.Sleep(20 * time.Millisecond) // the answer may come in pieces
		m.Write([]byte("\x1b[12;1R"))
	}()
	dark, ok := askDark(s, 5*time.Second)
	if dark || !ok {
		t.Fatalf("askDark = %v, %v; want light", dark, ok)
	}
	after, _ := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS)
	if after.Lflag != before.Lflag {
		t.Fatalf("terminal mode not restored: %#x, was %#x", after.Lflag, before.Lflag)
	}
}

func TestHasCursorReport(t *testing.T) {
	for in, want := range map[string]bool{
		"\x1b[12;1R": true, "x\x1b]11;rgb:0/0/0\x07\x1b[1;80R": true,
		"\x1b[12;1": false, "\x1b[;R": true, "\x1b[1;2;3R": false, "\x1b[12R": false,
	} {
		if got := hasCursorReport([]byte(in)); got != want {
			t.Errorf("hasCursorReport(%q) = %v", in, got)
		}
	}
}
