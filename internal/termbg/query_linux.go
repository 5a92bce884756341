package termbg

import (
	"bytes"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// askDark asks the terminal on f for its background color.
func askDark(f *os.File, timeout time.Duration) (dark, ok bool) {
	reply, ok := query(f, timeout)
	if !ok {
		return false, false
	}
	return parseOSC11(reply)
}

// hasCursorReport reports whether b holds an answer to CSI 6n
// ("ESC [ row ; col R"), which every terminal gives: it follows the OSC 11
// answer when there is one, so it ends the wait.
func hasCursorReport(b []byte) bool {
	for i := 0; i+2 < len(b); i++ {
		if b[i] != 0x1b || b[i+1] != '[' {
			continue
		}
		j, semi := i+2, false
		for ; j < len(b) && ('0' <= b[j] && b[j] <= '9' || b[j] == ';' && !semi); j++ {
			semi = semi || b[j] == ';'
		}
		if semi && j < len(b) && b[j] == 'R' {
			return true
		}
	}
	return false
}

// query writes OSC 11 and a cursor-position request to the terminal on f
// and returns what it answers, waiting at most timeout. It does not ask a
// terminal this process does not own in the foreground: reading it from
// the background would stop the process (SIGTTIN).
func query(f *os.File, timeout time.Duration) ([]byte, bool) {
	fd := int(f.Fd())
	if pg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil && pg != unix.Getpgrp() {
		return nil, false
	}
	saved, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, false
	}
	raw := *saved
	raw.Lflag &^= unix.ECHO | unix.ICANON
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &raw); err != nil {
		return nil, false
	}
	defer unix.IoctlSetTermios(fd, unix.TCSETS, saved) //nolint:errcheck
	if _, err := f.Write([]byte("\x1b]11;?\x1b\\\x1b[6n")); err != nil {
		return nil, false
	}
	deadline := time.Now().Add(timeout)
	var got []byte
	buf := make([]byte, 64)
	for !hasCursorReport(got) && len(got) < 256 {
		left := time.Until(deadline)
		if left <= 0 {
			return got, len(got) > 0
		}
		var set unix.FdSet
		set.Set(fd)
		tv := unix.NsecToTimeval(left.Nanoseconds())
		n, err := unix.Select(fd+1, &set, nil, nil, &tv)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return got, len(got) > 0
		}
		m, err := unix.Read(fd, buf)
		if err != nil || m <= 0 {
			return got, len(got) > 0
		}
		got = append(got, buf[:m]...)
	}
	return got, bytes.Contains(got, []byte("\x1b]11;"))
}
