package tui

// Extracting a fenced code block from an answer, for the copy-code key.

import "regexp"

var fence = regexp.MustCompile("(?ms)^[ \t]*(```|~~~)[^\n]*\n(.*?)\n[ \t]*(```|~~~)[ \t]*$")

// LastCodeBlock returns the body of the last fenced code block in md.
func LastCodeBlock(md string) string {
	all := fence.FindAllStringSubmatch(md, -1)
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1][2]
}
