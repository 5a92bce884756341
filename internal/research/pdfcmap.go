package research

import (
	"io"
	"sort"
	"strconv"
	"unicode/utf16"
)

// toUnicode is a parsed /ToUnicode CMap: font codes (1 to 4 bytes) to
// text. It is read by our own small tokenizer rather than the PDF
// library's, which is not exported and which the library consults only
// for fonts without an /Encoding.
type toUnicode struct {
	space  []codeRange         // codespace ranges, for composite fonts
	chars  map[cmapCode]string // bfchar and short bfrange entries
	ranges []cmapRange         // long bfrange entries
	widths [5]bool             // code lengths seen among the mappings
}

// cmapCode is a font code: its byte length and big-endian value.
type cmapCode struct {
	n int
	v uint32
}

type codeRange struct {
	n      int
	lo, hi uint32
}

// cmapRange maps lo..hi to consecutive text: the last UTF-16 unit of dst
// grows with the code.
type cmapRange struct {
	n      int
	lo, hi uint32
	dst    []uint16
}

// Bounds for a hostile CMap: a huge stream or range cannot exhaust memory.
const (
	maxCMapBytes    = 4 << 20
	maxCMapExpand   = 256 // a bfrange up to this long is stored code by code
	maxCMapOperands = 1 << 16
	maxCMapChars    = 1 << 17 // codes stored one by one; further ranges stay ranges
)

// parseToUnicode reads a ToUnicode CMap stream's decoded bytes. It returns
// nil when the stream maps nothing.
func parseToUnicode(r io.Reader) *toUnicode {
	data, _ := io.ReadAll(io.LimitReader(r, maxCMapBytes))
	m := &toUnicode{chars: map[cmapCode]string{}}
	lx := cmapLexer{s: data}
	var operands []cmapToken
	for {
		tok, ok := lx.next()
		if !ok {
			break
		}
		if tok.kind != tokKeyword {
			if len(operands) < maxCMapOperands {
				operands = append(operands, tok)
			}
			continue
		}
		switch string(tok.s) {
		case "endcodespacerange":
			for i := 0; i+1 < len(operands); i += 2 {
				lo, hi := operands[i], operands[i+1]
				if lo.kind == tokString && hi.kind == tokString && len(lo.s) == len(hi.s) && len(lo.s) >= 1 && len(lo.s) <= 4 {
					m.space = append(m.space, codeRange{len(lo.s), beUint(lo.s), beUint(hi.s)})
				}
			}
		case "endbfchar":
			for i := 0; i+1 < len(operands); i += 2 {
				src, dst := operands[i], operands[i+1]
				if src.kind == tokString && dst.kind == tokString && len(src.s) >= 1 && len(src.s) <= 4 {
					m.add(cmapCode{len(src.s), beUint(src.s)}, utf16Text(dst.s))
				}
			}
		case "endbfrange":
			m.bfrange(operands)
		}
		operands = operands[:0]
	}
	if len(m.chars) == 0 && len(m.ranges) == 0 {
		return nil
	}
	sort.Slice(m.ranges, func(i, j int) bool {
		a, b := m.ranges[i], m.ranges[j]
		return a.n < b.n || a.n == b.n && a.lo < b.lo
	})
	return m
}

func (m *toUnicode) add(c cmapCode, s string) {
	m.chars[c] = s
	m.widths[c.n] = true
}

// bfrange reads "lo hi dst" triples; dst is a string whose last unit
// counts up, or an array with one string per code.
func (m *toUnicode) bfrange(ops []cmapToken) {
	for i := 0; i < len(ops); {
		if i+2 >= len(ops) {
			return
		}
		lo, hi := ops[i], ops[i+1]
		i += 2
		var arr []cmapToken
		var dst []byte
		if ops[i].kind == tokArrayOpen {
			for i++; i < len(ops) && ops[i].kind != tokArrayClose; i++ {
				arr = append(arr, ops[i])
			}
			i++
		} else {
			dst = ops[i].s
			if ops[i].kind != tokString {
				dst = nil
			}
			i++
		}
		if lo.kind != tokString || hi.kind != tokString || len(lo.s) != len(hi.s) || len(lo.s) < 1 || len(lo.s) > 4 {
			continue
		}
		n, a, b := len(lo.s), beUint(lo.s), beUint(hi.s)
		if b < a {
			continue
		}
		if arr != nil {
			for k, t := range arr {
				if t.kind == tokString && a+uint32(k) <= b {
					m.add(cmapCode{n, a + uint32(k)}, utf16Text(t.s))
				}
			}
			continue
		}
		if len(dst) < 1 {
			continue
		}
		units := utf16Units(dst)
		if b-a < maxCMapExpand && len(m.chars) < maxCMapChars {
			for k := uint32(0); k <= b-a; k++ { // not c <= b: b may be the largest code
				u := append([]uint16(nil), units...)
				u[len(u)-1] += uint16(k)
				m.add(cmapCode{n, a + k}, string(utf16.Decode(u)))
			}
			continue
		}
		m.ranges = append(m.ranges, cmapRange{n, a, b, units})
		m.widths[n] = true
	}
}

// lookup returns the text of one code.
func (m *toUnicode) lookup(c cmapCode) (string, bool) {
	if s, ok := m.chars[c]; ok {
		return s, true
	}
	// The ranges are sorted by (length, lo): the last one starting at
	// or before the code is the one that may hold it.
	i := sort.Search(len(m.ranges), func(i int) bool {
		r := m.ranges[i]
		return r.n > c.n || r.n == c.n && r.lo > c.v
	}) - 1
	if i < 0 {
		return "", false
	}
	if r := m.ranges[i]; r.n == c.n && c.v <= r.hi {
		u := append([]uint16(nil), r.dst...)
		u[len(u)-1] += uint16(c.v - r.lo)
		return string(utf16.Decode(u)), true
	}
	return "", false
}

// lookupByte maps a simple font's one-byte code. Some producers write a
// simple font's map with two-byte source codes; those count too.
func (m *toUnicode) lookupByte(b byte) (string, bool) {
	if s, ok := m.lookup(cmapCode{1, uint32(b)}); ok {
		return s, true
	}
	if m.widths[2] {
		return m.lookup(cmapCode{2, uint32(b)})
	}
	return "", false
}

// codeLen returns the byte length of the code at the start of s under
// the codespace ranges (2 when none is declared or none matches: the
// common Identity encodings).
func (m *toUnicode) codeLen(s string) int {
	if m == nil || len(m.space) == 0 {
		return 2
	}
	for n := 1; n <= 4 && n <= len(s); n++ {
		v := beUint([]byte(s[:n]))
		for _, r := range m.space {
			if r.n == n && v >= r.lo && v <= r.hi {
				return n
			}
		}
	}
	return 2
}

func beUint(b []byte) uint32 {
	var v uint32
	for _, c := range b {
		v = v<<8 | uint32(c)
	}
	return v
}

func utf16Units(b []byte) []uint16 {
	if len(b)%2 == 1 { // not UTF-16: one byte, one unit
		u := make([]uint16, len(b))
		for i, c := range b {
			u[i] = uint16(c)
		}
		return u
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	return u
}

func utf16Text(b []byte) string { return string(utf16.Decode(utf16Units(b))) }

// cmapLexer tokenizes the PostScript subset of a CMap: strings, names,
// numbers, arrays, dictionaries delimiters and keywords.
type cmapLexer struct {
	s []byte
	i int
}

type tokKind int

const (
	tokKeyword tokKind = iota
	tokString
	tokName
	tokNumber
	tokArrayOpen
	tokArrayClose
	tokOther
)

type cmapToken struct {
	kind tokKind
	s    []byte
}

func isPSSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isPSDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func (lx *cmapLexer) next() (cmapToken, bool) {
	s := lx.s
	for lx.i < len(s) {
		c := s[lx.i]
		switch {
		case isPSSpace(c):
			lx.i++
		case c == '%':
			for lx.i < len(s) && s[lx.i] != '\n' && s[lx.i] != '\r' {
				lx.i++
			}
		case c == '[':
			lx.i++
			return cmapToken{kind: tokArrayOpen}, true
		case c == ']':
			lx.i++
			return cmapToken{kind: tokArrayClose}, true
		case c == '<' && lx.i+1 < len(s) && s[lx.i+1] == '<', c == '>' && lx.i+1 < len(s) && s[lx.i+1] == '>':
			lx.i += 2
			return cmapToken{kind: tokOther}, true
		case c == '<':
			return lx.hex(), true
		case c == '(':
			return lx.literal(), true
		case c == '/':
			lx.i++
			return cmapToken{kind: tokName, s: lx.word()}, true
		case c == '{' || c == '}' || c == ')' || c == '>':
			lx.i++
			return cmapToken{kind: tokOther}, true
		default:
			w := lx.word()
			if _, err := strconv.ParseFloat(string(w), 64); err == nil {
				return cmapToken{kind: tokNumber, s: w}, true
			}
			return cmapToken{kind: tokKeyword, s: w}, true
		}
	}
	return cmapToken{}, false
}

func (lx *cmapLexer) word() []byte {
	start := lx.i
	for lx.i < len(lx.s) && !isPSSpace(lx.s[lx.i]) && !isPSDelim(lx.s[lx.i]) {
		lx.i++
	}
	if lx.i == start { // a stray delimiter: step over it
		lx.i++
	}
	return lx.s[start:lx.i]
}

func (lx *cmapLexer) hex() cmapToken {
	var out []byte
	out, lx.i = psHex(lx.s, lx.i)
	return cmapToken{kind: tokString, s: out}
}

func (lx *cmapLexer) literal() cmapToken {
	var out []byte
	out, lx.i = psLiteral(lx.s, lx.i)
	return cmapToken{kind: tokString, s: out}
}

// psHex decodes the <hex string> at s[i] and returns the index after it.
// Other characters are skipped, an odd digit out is padded with 0, and an
// unterminated string ends at the end of s.
func psHex(s []byte, i int) ([]byte, int) {
	i++ // <
	var out []byte
	hi := -1
	for i < len(s) && s[i] != '>' {
		c := s[i]
		i++
		var v int
		switch {
		case c >= '0' && c <= '9':
			v = int(c - '0')
		case c >= 'a' && c <= 'f':
			v = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			v = int(c-'A') + 10
		default:
			continue
		}
		if hi < 0 {
			hi = v
		} else {
			out = append(out, byte(hi<<4|v))
			hi = -1
		}
	}
	if hi >= 0 {
		out = append(out, byte(hi<<4))
	}
	if i < len(s) {
		i++ // >
	}
	return out, i
}

// psLiteral decodes the (literal string) at s[i], escapes and balanced
// parentheses, and returns the index after it. An end of line inside
// reads as \n; an unterminated string ends at the end of s.
func psLiteral(s []byte, i int) ([]byte, int) {
	i++ // (
	var out []byte
	depth := 1
	for i < len(s) {
		c := s[i]
		i++
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return out, i
			}
		case '\r':
			if i < len(s) && s[i] == '\n' {
				i++
			}
			c = '\n'
		case '\\':
			if i >= len(s) {
				continue
			}
			e := s[i]
			i++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r', '\n': // a line continuation
				if e == '\r' && i < len(s) && s[i] == '\n' {
					i++
				}
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && i < len(s) && s[i] >= '0' && s[i] <= '7'; k++ {
						v = v*8 + int(s[i]-'0')
						i++
					}
					c = byte(v)
				} else {
					c = e // \( \) \\ and any other escaped byte
				}
			}
		}
		out = append(out, c)
	}
	return out, i
}
