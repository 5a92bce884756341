package research

import (
	"bytes"
	"strconv"
)

// A minimal PDF object scanner, for what the PDF library cannot do: find
// every object's strings and stream data by byte position, so an AES-256
// encrypted file can be decrypted in place (see pdfcrypt.go). It reads
// the file front to back, as a repair tool does, and never follows the
// xref: that also makes it indifferent to broken offsets. Hostile input
// (unterminated strings, absurd lengths, deep nesting) ends a token or a
// container early; nothing here panics or loops.

// maxScanDepth bounds array and dictionary nesting.
const maxScanDepth = 64

type pdfObjKind int

const (
	pdfNull pdfObjKind = iota
	pdfNum
	pdfName
	pdfStr
	pdfArr
	pdfDict
	pdfRef
	pdfKeyword
)

// pdfObj is one parsed value. A string keeps its decoded bytes and where
// its token stands in the file.
type pdfObj struct {
	kind       pdfObjKind
	num        float64
	s          string // name, keyword or decoded string
	start, end int    // a string token's bytes, delimiters included
	hex        bool   // a <hex> string
	arr        []*pdfObj
	dict       map[string]*pdfObj
	encryptAt  int // a dictionary's "/Encrypt" key, or -1
	ref        [2]int
}

func (o *pdfObj) key(k string) *pdfObj {
	if o == nil || o.kind != pdfDict {
		return nil
	}
	return o.dict[k]
}

func (o *pdfObj) name() string {
	if o == nil || o.kind != pdfName {
		return ""
	}
	return o.s
}

func (o *pdfObj) int() (int, bool) {
	if o == nil || o.kind != pdfNum || o.num != float64(int(o.num)) {
		return 0, false
	}
	return int(o.num), true
}

// strings calls fn for every string inside o.
func (o *pdfObj) strings(fn func(*pdfObj)) {
	if o == nil {
		return
	}
	switch o.kind {
	case pdfStr:
		fn(o)
	case pdfArr:
		for _, x := range o.arr {
			x.strings(fn)
		}
	case pdfDict:
		for _, x := range o.dict {
			x.strings(fn)
		}
	}
}

// pdfIndirect is one "N G obj … endobj" found in the file: its value and,
// for a stream, where the data stands.
type pdfIndirect struct {
	num, gen           int
	typ                string    // its /Type
	strs               []*pdfObj // its strings
	crypt              bool      // a stream with its own /Crypt filter
	stream             bool
	dataStart, dataEnd int
	// val is the value itself, kept only for what may be an encryption
	// dictionary (one with /U): the rest of a big file's dictionaries
	// need not stay in memory.
	val *pdfObj
}

// pdfScan is what a scan of the whole file found.
type pdfScan struct {
	objs     []pdfIndirect
	trailers []*pdfObj // "trailer" dictionaries and cross-reference stream dictionaries
}

type pdfScanner struct {
	b   []byte
	pos int
	// The last search for "endstream": from endFrom it found endAt (-1:
	// none to the end). Streams without their endstream (a hostile file
	// repeating "stream" with a wrong /Length) would otherwise make every
	// search run to the same far endstream, or the end of the file.
	endFrom, endAt int
	searched       bool
}

// nextEndstream returns the position of the first "endstream" at or after
// from, or -1.
func (s *pdfScanner) nextEndstream(from int) int {
	if s.searched && from >= s.endFrom && (s.endAt < 0 || from <= s.endAt) {
		return s.endAt
	}
	s.searched, s.endFrom, s.endAt = true, from, -1
	if i := bytes.Index(s.b[from:], []byte("endstream")); i >= 0 {
		s.endAt = from + i
	}
	return s.endAt
}

func (s *pdfScanner) skipSpace() {
	for s.pos < len(s.b) {
		c := s.b[s.pos]
		switch {
		case isPSSpace(c):
			s.pos++
		case c == '%':
			for s.pos < len(s.b) && s.b[s.pos] != '\n' && s.b[s.pos] != '\r' {
				s.pos++
			}
		default:
			return
		}
	}
}

// token reads one token: a string (kind pdfStr), a name, a number, a
// keyword, or a delimiter ("<<", ">>", "[", "]", "{", "}") as a keyword.
// At the end of the data it returns nil.
func (s *pdfScanner) token() *pdfObj {
	s.skipSpace()
	if s.pos >= len(s.b) {
		return nil
	}
	start := s.pos
	c := s.b[s.pos]
	switch {
	case c == '(':
		return s.literal()
	case c == '<' && s.pos+1 < len(s.b) && s.b[s.pos+1] == '<', c == '>' && s.pos+1 < len(s.b) && s.b[s.pos+1] == '>':
		s.pos += 2
		return &pdfObj{kind: pdfKeyword, s: string(s.b[start:s.pos])}
	case c == '<':
		return s.hexString()
	case c == '/':
		s.pos++
		var name []byte
		for s.pos < len(s.b) && !isPSSpace(s.b[s.pos]) && !isPSDelim(s.b[s.pos]) {
			if s.b[s.pos] == '#' && s.pos+2 < len(s.b) {
				if v, err := strconv.ParseUint(string(s.b[s.pos+1:s.pos+3]), 16, 8); err == nil {
					name = append(name, byte(v))
					s.pos += 3
					continue
				}
			}
			name = append(name, s.b[s.pos])
			s.pos++
		}
		return &pdfObj{kind: pdfName, s: string(name), start: start}
	case isPSDelim(c):
		s.pos++ // [ ] { } and a stray ) or >
		return &pdfObj{kind: pdfKeyword, s: string(c)}
	}
	for s.pos < len(s.b) && !isPSSpace(s.b[s.pos]) && !isPSDelim(s.b[s.pos]) {
		s.pos++
	}
	word := string(s.b[start:s.pos])
	if f, err := strconv.ParseFloat(word, 64); err == nil && (word[0] == '-' || word[0] == '+' || word[0] == '.' || word[0] >= '0' && word[0] <= '9') {
		return &pdfObj{kind: pdfNum, num: f}
	}
	return &pdfObj{kind: pdfKeyword, s: word}
}

func (s *pdfScanner) literal() *pdfObj {
	start := s.pos
	var out []byte
	out, s.pos = psLiteral(s.b, s.pos)
	return &pdfObj{kind: pdfStr, s: string(out), start: start, end: s.pos}
}

func (s *pdfScanner) hexString() *pdfObj {
	start := s.pos
	var out []byte
	out, s.pos = psHex(s.b, s.pos)
	return &pdfObj{kind: pdfStr, s: string(out), start: start, end: s.pos, hex: true}
}

// value parses one value starting at the next token; nil at the end of
// the data. A keyword that ends a container is returned as is, for the
// caller to see.
func (s *pdfScanner) value(depth int) *pdfObj {
	t := s.token()
	if t == nil {
		return nil
	}
	switch {
	case t.kind == pdfNum:
		// "N G R" is a reference.
		if n, ok := t.int(); ok && n >= 0 {
			save := s.pos
			if g := s.token(); g != nil && g.kind == pdfNum {
				if gen, ok := g.int(); ok && gen >= 0 {
					if r := s.token(); r != nil && r.kind == pdfKeyword && r.s == "R" {
						return &pdfObj{kind: pdfRef, ref: [2]int{n, gen}}
					}
				}
			}
			s.pos = save
		}
	case t.kind == pdfKeyword && t.s == "<<":
		d := &pdfObj{kind: pdfDict, dict: map[string]*pdfObj{}, encryptAt: -1}
		for {
			k := s.token()
			if k == nil || k.kind == pdfKeyword && k.s == ">>" {
				return d
			}
			if k.kind != pdfName {
				continue // junk where a key should be
			}
			v := s.nested(depth)
			if v == nil {
				return d
			}
			if v.kind == pdfKeyword && v.s == ">>" {
				return d
			}
			d.dict[k.s] = v
			if k.s == "Encrypt" {
				d.encryptAt = k.start
			}
		}
	case t.kind == pdfKeyword && t.s == "[":
		a := &pdfObj{kind: pdfArr}
		for {
			v := s.nested(depth)
			if v == nil || v.kind == pdfKeyword && v.s == "]" {
				return a
			}
			a.arr = append(a.arr, v)
		}
	case t.kind == pdfKeyword && (t.s == "null" || t.s == "true" || t.s == "false"):
		if t.s == "null" {
			return &pdfObj{kind: pdfNull}
		}
	}
	return t
}

// nested parses a value inside a container, or, past maxScanDepth, only
// the next token: a hostile nesting then reads as a flat run of tokens.
func (s *pdfScanner) nested(depth int) *pdfObj {
	if depth >= maxScanDepth {
		return s.token()
	}
	return s.value(depth + 1)
}

// scanPDF reads every indirect object and trailer of a file.
func scanPDF(b []byte) *pdfScan {
	s := &pdfScanner{b: b}
	out := &pdfScan{}
	for {
		t := s.token()
		if t == nil {
			return out
		}
		if t.kind == pdfKeyword && t.s == "trailer" {
			if v := s.value(0); v != nil && v.kind == pdfDict {
				out.trailers = append(out.trailers, v)
			}
			continue
		}
		num, ok := t.int()
		if !ok || num < 0 {
			continue
		}
		// "N G obj"
		save := s.pos
		g := s.token()
		gen, ok := g.int()
		if o := s.token(); g == nil || !ok || o == nil || o.kind != pdfKeyword || o.s != "obj" {
			s.pos = save
			continue
		}
		val := s.value(0)
		obj := pdfIndirect{num: num, gen: gen, typ: val.key("Type").name()}
		val.strings(func(s *pdfObj) { obj.strs = append(obj.strs, s) })
		if val != nil && val.kind == pdfDict {
			s.skipSpace()
			if bytes.HasPrefix(b[s.pos:], []byte("stream")) {
				s.pos += len("stream")
				obj.stream, obj.crypt = true, usesCryptFilter(val)
				obj.dataStart, obj.dataEnd = s.streamData(val)
				s.pos = obj.dataEnd
			}
			if obj.typ == "XRef" {
				out.trailers = append(out.trailers, val)
			}
			if val.key("U") != nil {
				obj.val = val
			}
		}
		out.objs = append(out.objs, obj)
	}
}

// streamData finds a stream's data after the "stream" keyword: /Length
// bytes when a direct /Length is followed by "endstream", else up to the
// next "endstream" (an indirect, absurd or wrong /Length), else /Length
// bytes if the file has them, else to the end of the file.
func (s *pdfScanner) streamData(dict *pdfObj) (start, end int) {
	b := s.b
	if s.pos < len(b) && b[s.pos] == '\r' {
		s.pos++
	}
	if s.pos < len(b) && b[s.pos] == '\n' {
		s.pos++
	}
	start = s.pos
	if n, ok := dict.key("Length").int(); ok && n >= 0 && n <= len(b)-start {
		rest := bytes.TrimLeft(b[start+n:], " \r\n\t\f\x00")
		if bytes.HasPrefix(rest, []byte("endstream")) {
			return start, start + n
		}
	}
	if i := s.nextEndstream(start); i >= 0 {
		return start, i // the end of line before endstream stays in
	}
	if n, ok := dict.key("Length").int(); ok && n >= 0 && n <= len(b)-start {
		return start, start + n
	}
	return start, len(b)
}
