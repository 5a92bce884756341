package research

import (
	"strings"

	"github.com/ledongthuc/pdf"
)

// pdfItem is one glyph (or one code's text) placed on a page. left and
// right are where layout analysis takes the glyph to stand: X and X+W, or
// estimates when the font gives no width (no /Widths, and not a standard
// font whose metrics we know), whose glyphs the text matrix does not
// advance.
type pdfItem struct {
	pdf.Text
	left, right float64
	guessed     bool // no width known: left and right are estimates
}

// pdfFont decodes one font's codes. A /ToUnicode map wins for the codes it
// covers (PDF 32000 §9.10.2) and the font's encoding, as the library reads
// it, serves the rest: the library alone ignores /ToUnicode whenever an
// /Encoding is present, which garbles fonts that remap glyphs with
// /Differences.
type pdfFont struct {
	name      string
	enc       pdf.TextEncoding
	uni       *toUnicode
	composite bool
	identity  bool // Identity-H/V: two-byte codes equal to CIDs
	first     int
	widths    []float64
	cidWidths map[uint32]float64
	defWidth  float64      // a composite font's /DW
	scale     float64      // glyph space to text space (FontMatrix for Type3)
	mono      bool         // Courier without /Widths: every glyph is 600
	std       *[224]uint16 // a standard font's own widths, without /Widths
	byteText  [256]string  // a simple font's decoded codes, filled as met
	byteDone  [256]bool
}

func newPDFFont(v pdf.Value) *pdfFont {
	lib := pdf.Font{V: v}
	f := &pdfFont{name: lib.BaseFont(), scale: 0.001}
	if i := strings.Index(f.name, "+"); i >= 0 {
		f.name = f.name[i+1:]
	}
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		rc := tu.Reader()
		f.uni = parseToUnicode(rc)
		rc.Close()
	}
	// Without an /Encoding (or with Identity-H) the library's encoding is
	// the same ToUnicode map, which it would parse again: the codes it
	// misses it leaves unknown.
	if e := v.Key("Encoding"); f.uni != nil && (e.Kind() == pdf.Null || e.Name() == "Identity-H") {
		f.enc = unknownCodes{}
	} else {
		f.enc = lib.Encoder()
	}
	switch v.Key("Subtype").Name() {
	case "Type0":
		f.composite = true
		e := v.Key("Encoding").Name()
		f.identity = e == "Identity-H" || e == "Identity-V"
		f.defWidth = 1000
		if d := v.Key("DescendantFonts").Index(0); d.Kind() == pdf.Dict {
			if dw := d.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
				f.defWidth = dw.Float64()
			}
			f.cidWidths = cidWidths(d.Key("W"))
		}
		return f
	case "Type3":
		if m := v.Key("FontMatrix"); m.Len() == 6 && m.Index(0).Float64() != 0 {
			f.scale = m.Index(0).Float64()
		}
	}
	f.first = lib.FirstChar()
	w := v.Key("Widths")
	for i := 0; i < w.Len() && i < 256; i++ {
		f.widths = append(f.widths, w.Index(i).Float64())
	}
	if len(f.widths) == 0 && v.Key("Subtype").Name() != "Type3" {
		f.mono = strings.HasPrefix(f.name, "Courier")
		f.std = standardWidths(f.name)
	}
	return f
}

// maxCIDWidths bounds a composite font's /W array expansion.
const maxCIDWidths = 1 << 16

// cidWidths reads a CIDFont /W array: "c [w1 w2 …]" and "c1 c2 w".
func cidWidths(w pdf.Value) map[uint32]float64 {
	out := map[uint32]float64{}
	for i := 0; i < w.Len() && len(out) < maxCIDWidths; {
		c := w.Index(i)
		if i+1 >= w.Len() {
			break
		}
		next := w.Index(i + 1)
		if next.Kind() == pdf.Array {
			for k := 0; k < next.Len() && len(out) < maxCIDWidths; k++ {
				out[uint32(c.Int64())+uint32(k)] = next.Index(k).Float64()
			}
			i += 2
			continue
		}
		if i+2 >= w.Len() {
			break
		}
		lo, hi, width := c.Int64(), next.Int64(), w.Index(i+2).Float64()
		for k := lo; k <= hi && k >= 0 && len(out) < maxCIDWidths; k++ {
			out[uint32(k)] = width
		}
		i += 3
	}
	return out
}

// unknownCodes decodes every code as U+FFFD, which the text drops.
type unknownCodes struct{}

func (unknownCodes) Decode(string) string { return "\uFFFD" }

// glyph is one decoded code: its text, its width in glyph space (known
// false when the font gives none) and whether word spacing applies.
type glyph struct {
	text  string
	width float64
	known bool
	space bool
}

// decode splits a shown string into codes and decodes each.
func (f *pdfFont) decode(s string, fn func(glyph)) {
	for len(s) > 0 {
		n := 1
		if f.composite {
			n = 2
			if !f.identity {
				n = f.uni.codeLen(s)
			}
			n = min(n, len(s))
		}
		code := s[:n]
		s = s[n:]
		g := glyph{space: n == 1 && code[0] == ' ', text: f.text(code)}
		switch {
		case f.composite:
			g.width, g.known = f.defWidth, true
			if w, ok := f.cidWidths[beUint([]byte(code))]; ok && f.identity {
				g.width = w
			}
		case f.mono:
			g.width, g.known = 600, true
		case f.std != nil:
			if c := code[0]; c >= 32 && f.std[c-32] > 0 {
				g.width, g.known = float64(f.std[c-32]), true
			}
		default:
			if i := int(code[0]) - f.first; i >= 0 && i < len(f.widths) {
				g.width, g.known = f.widths[i], true
			}
		}
		fn(g)
	}
}

// text decodes one code: the ToUnicode map first, then the encoding. A
// simple font's 256 answers are kept.
func (f *pdfFont) text(code string) string {
	if !f.composite {
		b := code[0]
		if !f.byteDone[b] {
			f.byteText[b], f.byteDone[b] = f.decodeCode(code), true
		}
		return f.byteText[b]
	}
	return f.decodeCode(code)
}

func (f *pdfFont) decodeCode(code string) string {
	if f.uni != nil {
		var s string
		var ok bool
		if f.composite {
			s, ok = f.uni.lookup(cmapCode{len(code), beUint([]byte(code))})
		} else {
			s, ok = f.uni.lookupByte(code[0])
		}
		if ok {
			return s
		}
	}
	return f.enc.Decode(code)
}

type pdfMatrix [3][3]float64

var identMatrix = pdfMatrix{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}

func (x pdfMatrix) mul(y pdfMatrix) pdfMatrix {
	var z pdfMatrix
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 3; k++ {
				z[i][j] += x[i][k] * y[k][j]
			}
		}
	}
	return z
}

func translate(tx, ty float64) pdfMatrix { return pdfMatrix{{1, 0, 0}, {0, 1, 0}, {tx, ty, 1}} }

type textState struct {
	Tc, Tw, Th, Tl, Tfs, Trise float64
	font                       *pdfFont
	Tm, Tlm, CTM               pdfMatrix
}

// place returns the rendering matrix's horizontal size and origin: the
// first row and the last of [Tfs·Th 0; 0 Tfs; 0 Trise] × Tm × CTM, without
// two full matrix products per glyph (every matrix here is affine).
func (g *textState) place() (size, x, y float64) {
	m, c := &g.Tm, &g.CTM
	size = g.Tfs * g.Th * (m[0][0]*c[0][0] + m[0][1]*c[1][0])
	x = g.Trise*(m[1][0]*c[0][0]+m[1][1]*c[1][0]) + m[2][0]*c[0][0] + m[2][1]*c[1][0] + c[2][0]
	y = g.Trise*(m[1][0]*c[0][1]+m[1][1]*c[1][1]) + m[2][0]*c[0][1] + m[2][1]*c[1][1] + c[2][1]
	return size, x, y
}

// advance moves the text matrix tx along the baseline: translate(tx, 0) × Tm.
func (g *textState) advance(tx float64) {
	g.Tm[2][0] += tx * g.Tm[0][0]
	g.Tm[2][1] += tx * g.Tm[0][1]
}

// Form XObject bounds: a form may draw forms, and a hostile file may make
// one draw itself (a cycle) or fan out (each form drawing the next many
// times over), so depth and the number of forms entered per page are
// capped, and a form already being drawn is not entered again.
const (
	maxXObjectDepth = 8
	maxXObjects     = 512
)

// pageItems interprets a page's content stream for its text, as the
// library's Page.Content does (same positions, one item per code) but with
// our font decoding, word spacing, composite and Type3 widths, and without
// the library's panics on a malformed operator, which cost a whole
// document. Form XObjects (a letterhead, a slide's text box, a stamped
// page from another document) are entered where they are drawn, with
// their /Matrix and their own resources.
func pageItems(p pdf.Page) []pdfItem {
	if p.V.IsNull() || p.V.Key("Contents").Kind() == pdf.Null {
		return nil
	}
	c := contentRun{g: textState{Th: 1, CTM: identMatrix, Tm: identMatrix, Tlm: identMatrix}, active: map[string]bool{}, formFonts: map[string]map[string]*pdfFont{}}
	c.run(p.V.Key("Contents"), p.Resources(), map[string]*pdfFont{}, 0)
	return c.items
}

// contentRun is the state of one page's interpretation, forms included.
type contentRun struct {
	g      textState
	items  []pdfItem
	forms  int             // forms entered so far
	active map[string]bool // forms being drawn, by identity
	// formFonts keeps the fonts of forms with their own resources, by
	// form: a form drawn many times (a logo, a bullet) loads them once.
	formFonts map[string]map[string]*pdfFont
}

// run interprets one content stream (the page's, or a form's) with res
// as its resources and fonts as the fonts loaded from them.
func (c *contentRun) run(content, res pdf.Value, fonts map[string]*pdfFont, depth int) {
	fontRes := res.Key("Font")
	var stack []textState
	g := &c.g
	show := func(s string) {
		f := g.font
		if f == nil {
			f = newPDFFont(pdf.Value{})
			g.font = f
		}
		est := 0.0 // estimated advance of glyphs without a width, in text space
		f.decode(s, func(gl glyph) {
			size, x, y := g.place()
			w, left := gl.width*f.scale*size, x+est
			if !gl.known {
				est += 0.5 * size
			}
			if gl.text != "" {
				c.items = append(c.items, pdfItem{
					Text: pdf.Text{Font: f.name, FontSize: size, X: x, Y: y, W: w, S: gl.text},
					left: left, right: x + w + est, guessed: !gl.known,
				})
			}
			tx := gl.width*f.scale*g.Tfs + g.Tc
			if gl.space {
				tx += g.Tw
			}
			g.advance(tx * g.Th)
		})
	}
	nextLine := func() {
		g.Tlm = translate(0, -g.Tl).mul(g.Tlm)
		g.Tm = g.Tlm
	}
	pdf.Interpret(content, func(stk *pdf.Stack, op string) {
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch {
		case op == "cm" && n == 6:
			g.CTM = matrixOf(args).mul(g.CTM)
		case op == "q":
			stack = append(stack, *g)
		case op == "Q" && len(stack) > 0:
			*g = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		case op == "Do" && n == 1:
			c.form(res.Key("XObject").Key(args[0].Name()), res, fonts, depth)
		case op == "BT":
			g.Tm, g.Tlm = identMatrix, identMatrix
		case op == "T*":
			nextLine()
		case op == "Tc" && n == 1:
			g.Tc = args[0].Float64()
		case op == "Tw" && n == 1:
			g.Tw = args[0].Float64()
		case op == "TL" && n == 1:
			g.Tl = args[0].Float64()
		case op == "Ts" && n == 1:
			g.Trise = args[0].Float64()
		case op == "Tz" && n == 1:
			g.Th = args[0].Float64() / 100
		case (op == "Td" || op == "TD") && n == 2:
			if op == "TD" {
				g.Tl = -args[1].Float64()
			}
			g.Tlm = translate(args[0].Float64(), args[1].Float64()).mul(g.Tlm)
			g.Tm = g.Tlm
		case op == "Tm" && n == 6:
			g.Tm = matrixOf(args)
			g.Tlm = g.Tm
		case op == "Tf" && n == 2:
			name := args[0].Name()
			f, ok := fonts[name]
			if !ok {
				f = newPDFFont(fontRes.Key(name))
				fonts[name] = f
			}
			g.font, g.Tfs = f, args[1].Float64()
		case op == "Tj" && n == 1:
			show(args[0].RawString())
		case op == "'" && n == 1:
			nextLine()
			show(args[0].RawString())
		case op == "\"" && n == 3:
			g.Tw, g.Tc = args[0].Float64(), args[1].Float64()
			nextLine()
			show(args[2].RawString())
		case op == "TJ" && n == 1:
			v := args[0]
			for i := 0; i < v.Len(); i++ {
				x := v.Index(i)
				if x.Kind() == pdf.String {
					show(x.RawString())
				} else {
					g.advance(-x.Float64() / 1000 * g.Tfs * g.Th)
				}
			}
		}
	})
}

// form draws a Form XObject: under its /Matrix, with its own resources
// (or, for an old form without them, the caller's), in a graphics state
// saved and restored around it. Image XObjects carry no text. A form whose
// content fails to parse ends there; the page goes on.
func (c *contentRun) form(x, res pdf.Value, fonts map[string]*pdfFont, depth int) {
	if x.Kind() != pdf.Stream || x.Key("Subtype").Name() != "Form" || depth >= maxXObjectDepth || c.forms >= maxXObjects {
		return
	}
	// A stream prints as its dictionary and file offset: unique per
	// stream object, which the library gives no other handle on.
	id := x.String()
	if i := strings.LastIndexByte(id, '@'); i >= 0 {
		id = id[i:]
	}
	if c.active[id] {
		return
	}
	c.forms++
	c.active[id] = true
	saved := c.g
	defer func() {
		c.g = saved
		delete(c.active, id)
		_ = recover() // a broken form loses its own text only
	}()
	if m := x.Key("Matrix"); m.Len() == 6 {
		args := make([]pdf.Value, 6)
		for i := range args {
			args[i] = m.Index(i)
		}
		c.g.CTM = matrixOf(args).mul(c.g.CTM)
	}
	if r := x.Key("Resources"); r.Kind() == pdf.Dict {
		res = r
		if fonts = c.formFonts[id]; fonts == nil {
			fonts = map[string]*pdfFont{}
			c.formFonts[id] = fonts
		}
	}
	c.run(x, res, fonts, depth+1)
}

func matrixOf(args []pdf.Value) pdfMatrix {
	var m pdfMatrix
	for i := 0; i < 6; i++ {
		m[i/2][i%2] = args[i].Float64()
	}
	m[2][2] = 1
	return m
}
