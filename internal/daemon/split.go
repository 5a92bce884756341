package daemon

import (
	"strings"
	"unicode/utf8"
)

// Split cuts text into pieces of at most limit characters (runes, as
// the original's response_chunk_chars counts) and, when maxBytes > 0, at
// most maxBytes bytes, cutting at the last newline in the window, else
// the last space, else hard at a rune boundary; a cut point closer than
// minCut bytes to the window start is not taken, so pieces do not shrink
// to a few characters.
func Split(text string, limit, maxBytes, minCut int) []string {
	if limit <= 0 {
		limit = len(text)
	}
	var out []string
	for {
		end := window(text, limit, maxBytes)
		if end == len(text) {
			break
		}
		window := text[:end]
		cut := strings.LastIndexByte(window, '\n')
		if cut < minCut {
			cut = strings.LastIndexByte(window, ' ')
		}
		if cut < minCut {
			cut = end
		}
		piece := strings.TrimRight(text[:cut], " \n")
		if piece != "" {
			out = append(out, piece)
		}
		text = strings.TrimLeft(text[cut:], " \n")
	}
	if text != "" || len(out) == 0 {
		out = append(out, text)
	}
	return out
}

// window is the byte length of text's first limit runes, shortened to
// at most maxBytes (when > 0) at a rune boundary; at least one rune.
func window(text string, limit, maxBytes int) int {
	n := 0
	for i := range text {
		if n == limit {
			return i
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		if maxBytes > 0 && i+size > maxBytes {
			if i == 0 {
				return size
			}
			return i
		}
		n++
	}
	return len(text)
}
