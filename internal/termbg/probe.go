package termbg

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/muesli/termenv"
)

// probeTimeout bounds the wait for the terminal's answer. Terminals answer
// in milliseconds (tens over SSH); termenv waits up to 5 s for each byte,
// which froze every answer for 5 s in a pty that never answers (script,
// pexpect, CI harnesses).
const probeTimeout = time.Second

// Dark reports whether the terminal on f has a dark background: from
// $COLORFGBG when set, else by asking the terminal (OSC 11) and waiting
// at most probeTimeout. Multiplexers (screen, tmux) and dumb terminals are
// not asked: they cannot answer for the terminal behind them. Without an
// answer the background is taken as dark, the common case.
func Dark(f *os.File, getenv func(string) string) bool {
	if dark, ok := colorFGBG(getenv("COLORFGBG")); ok {
		return dark
	}
	term := getenv("TERM")
	if strings.HasPrefix(term, "screen") || strings.HasPrefix(term, "tmux") || strings.HasPrefix(term, "dumb") {
		return true
	}
	dark, ok := askDark(f, probeTimeout)
	return dark || !ok
}

// colorFGBG reads rxvt's "fg;bg" (or "fg;default;bg") variable.
func colorFGBG(v string) (dark, ok bool) {
	i := strings.LastIndexByte(v, ';')
	if i < 0 {
		return false, false
	}
	n, err := strconv.Atoi(v[i+1:])
	if err != nil || n < 0 || n > 255 {
		return false, false
	}
	_, _, l := termenv.ConvertToRGB(termenv.ANSI256Color(n)).Hsl()
	return l < 0.5, true
}

// parseOSC11 reads the background color from a terminal's answer to
// OSC 11 ("ESC ] 11 ; rgb:RRRR/GGGG/BBBB" ended by BEL or ST), and says
// whether it is dark by its relative luminance.
func parseOSC11(b []byte) (dark, ok bool) {
	i := bytes.Index(b, []byte("\x1b]11;rgb:"))
	if i < 0 {
		return false, false
	}
	rest := b[i+len("\x1b]11;rgb:"):]
	end := bytes.IndexAny(rest, "\x07\x1b")
	if end < 0 {
		return false, false
	}
	parts := strings.Split(string(rest[:end]), "/")
	if len(parts) != 3 {
		return false, false
	}
	var c [3]float64
	for k, p := range parts {
		if len(p) == 0 || len(p) > 4 {
			return false, false
		}
		v, err := strconv.ParseUint(p, 16, 16)
		if err != nil {
			return false, false
		}
		c[k] = float64(v) / float64(uint64(1)<<(4*len(p))-1)
	}
	return 0.2126*c[0]+0.7152*c[1]+0.0722*c[2] < 0.5, true
}
