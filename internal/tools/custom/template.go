// Package custom turns [tool.NAME] entries of the config into tools the
// model can call. A command is a template ("ls {flags} {path}") or an argv
// array; it is split with shell-like quoting and run directly, never through
// a shell, so an argument such as `; rm -rf ~` or `$(id)` reaches the
// program as one literal argv element.
package custom

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// segment is a run of a word that was quoted or not. Only unquoted text
// takes part in brace expansion, as in a shell.
type segment struct {
	text   string
	quoted bool
}

// word is one argv element of a template before expansion.
type word []segment

func (w word) String() string {
	var b strings.Builder
	for _, s := range w {
		b.WriteString(s.text)
	}
	return b.String()
}

// splitTemplate splits a command template into words with POSIX-shell-like
// quoting: single quotes are literal, double quotes allow \" \\ \$ \`
// escapes, a backslash outside quotes escapes the next character. Nothing
// else of a shell applies: no variables, globs, pipes or substitutions.
func splitTemplate(s string) ([]word, error) {
	var words []word
	var cur word
	var buf strings.Builder
	inWord := false
	flush := func(quoted bool) {
		if buf.Len() > 0 {
			cur = append(cur, segment{buf.String(), quoted})
			buf.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				flush(false)
				words = append(words, cur)
				cur, inWord = nil, false
			}
		case c == '\'':
			flush(false)
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated single quote in %q", s)
			}
			cur = append(cur, segment{s[i+1 : i+1+j], true})
			i += j + 1
			inWord = true
		case c == '"':
			flush(false)
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				buf.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated double quote in %q", s)
			}
			if buf.Len() == 0 {
				cur = append(cur, segment{"", true})
			}
			flush(true)
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("trailing backslash in %q", s)
			}
			flush(false)
			i++
			buf.WriteByte(s[i])
			flush(true)
			inWord = true
		default:
			buf.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		flush(false)
		words = append(words, cur)
	}
	return words, nil
}

// placeholderRe matches {name} where name is a parameter identifier.
var placeholderRe = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandBraces applies shell brace expansion ({a,b} and {1..3}) to the
// unquoted text of a template word. Placeholders ({name}) have no comma or
// range, so they are left for substitution. It runs on the template only,
// never on argument values.
func expandBraces(w word) []word {
	for si, seg := range w {
		if seg.quoted {
			continue
		}
		open, close, alts := findBrace(seg.text)
		if open < 0 {
			continue
		}
		var out []word
		for _, alt := range alts {
			nw := make(word, 0, len(w)+2)
			nw = append(nw, w[:si]...)
			nw = append(nw, segment{seg.text[:open], false}, segment{alt, false}, segment{seg.text[close+1:], false})
			nw = append(nw, w[si+1:]...)
			out = append(out, expandBraces(nw)...)
		}
		return out
	}
	return []word{w}
}

// findBrace finds the first expandable brace group in s and returns its
// bounds and alternatives; open is -1 when there is none.
func findBrace(s string) (open, close int, alts []string) {
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		depth, commas := 0, []int{}
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '{':
				depth++
			case ',':
				if depth == 1 {
					commas = append(commas, j)
				}
			case '}':
				depth--
				if depth > 0 {
					continue
				}
				body := s[i+1 : j]
				if len(commas) > 0 {
					prev := i + 1
					for _, c := range commas {
						alts = append(alts, s[prev:c])
						prev = c + 1
					}
					return i, j, append(alts, s[prev:j])
				}
				if r := seqRange(body); r != nil {
					return i, j, r
				}
				j = len(s) // not expandable; look for the next '{'
			}
		}
	}
	return -1, -1, nil
}

// seqRange expands an integer range body "1..3".
func seqRange(body string) []string {
	a, b, ok := strings.Cut(body, "..")
	if !ok {
		return nil
	}
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || abs(y-x) > 1000 {
		return nil
	}
	step := 1
	if y < x {
		step = -1
	}
	var out []string
	for i := x; ; i += step {
		out = append(out, strconv.Itoa(i))
		if i == y {
			return out
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// placeholders returns the parameter names used in w.
func (w word) placeholders() []string {
	var names []string
	for _, m := range placeholderRe.FindAllStringSubmatch(w.String(), -1) {
		names = append(names, m[1])
	}
	return names
}

// wholePlaceholder reports the name when w is exactly one placeholder.
func (w word) wholePlaceholder() (string, bool) {
	s := w.String()
	m := placeholderRe.FindStringSubmatchIndex(s)
	if m == nil || m[0] != 0 || m[1] != len(s) {
		return "", false
	}
	return s[m[2]:m[3]], true
}

// leading returns the placeholder w starts with, if any.
func (w word) leading() (string, bool) {
	s := w.String()
	m := placeholderRe.FindStringSubmatchIndex(s)
	if m == nil || m[0] != 0 {
		return "", false
	}
	return s[m[2]:m[3]], true
}
