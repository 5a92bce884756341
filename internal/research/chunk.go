package research

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is one chunk: Text is Norm[Start:End] of the whitespace-collapsed
// input.
type Span struct {
	Text       string
	Start, End int
}

// Chunker packs whole sentences into chunks of about Size tokens (chars/4)
// with about Overlap tokens repeated between neighbours, so a sentence cut
// at a boundary is still whole in one chunk.
type Chunker struct {
	Size    int // tokens per chunk (default 256)
	Overlap int // tokens of overlap (default 48)
}

// ErrBadChunkParams rejects an overlap that would never make progress.
var ErrBadChunkParams = errors.New("chunk overlap must be smaller than the chunk size, and the size positive")

func (c Chunker) limits() (maxChars, overlapChars int, err error) {
	size, ov := c.Size, c.Overlap
	if size == 0 {
		size = 256
	}
	if size < 0 || ov < 0 || ov >= size {
		return 0, 0, ErrBadChunkParams
	}
	maxChars = size * 4
	if maxChars < 16 {
		maxChars = 16
	}
	return maxChars, ov * 4, nil
}

// CollapseSpace joins the whitespace-separated fields of s with one space.
func CollapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf { // ASCII fast path: most text, every ingest
			i++
			if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f' {
				space = b.Len() > 0
				continue
			}
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteByte(c)
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if r == utf8.RuneError {
			// Invalid bytes and U+FFFD carry no text.
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// minTail is the least new text a final chunk must add to stand on its own;
// a shorter tail is merged into the previous chunk, which may then exceed
// maxChars by up to this much.
func minTail(maxChars int) int { return maxChars / 4 }

// Split chunks text. Chunks are never empty, never longer than Size*4
// bytes (Size*5 when a short tail was merged into the last one), start
// and end on rune boundaries and together cover the collapsed text in
// order.
func (c Chunker) Split(text string) ([]Span, error) {
	maxChars, overlapChars, err := c.limits()
	if err != nil {
		return nil, err
	}
	norm := CollapseSpace(text)
	if norm == "" {
		return nil, nil
	}
	sents := sentences(norm, maxChars)
	var out []Span
	i := 0
	for i < len(sents) {
		j := i + 1
		for j < len(sents) && sents[j].End-sents[i].Start <= maxChars {
			j++
		}
		s := Span{Start: sents[i].Start, End: sents[j-1].End}
		if n := len(out); n > 0 && j >= len(sents) && s.End-out[n-1].End < minTail(maxChars) {
			// A tail that adds only a few words to the previous chunk
			// ("distribution marker350x30.") would be a fragment of its
			// own, favoured by short-document BM25 and by the dense side:
			// the previous chunk absorbs it instead.
			out[n-1].End = s.End
			out[n-1].Text = norm[out[n-1].Start:s.End]
			break
		}
		s.Text = norm[s.Start:s.End]
		out = append(out, s)
		if j >= len(sents) {
			break
		}
		// Back up whole sentences for the overlap, but always leave room
		// for at least the next new sentence.
		k := j
		overlap := 0
		for k-1 > i && overlap < overlapChars && sents[j].End-sents[k-1].Start <= maxChars {
			k--
			overlap = sents[j-1].End - sents[k].Start
		}
		i = k
	}
	return out, nil
}

// sentences splits norm (single-spaced) at ". ", "! ", "? " and cuts
// sentences longer than maxChars at spaces, or at rune boundaries for one
// huge word. Spans exclude the separating space.
func sentences(norm string, maxChars int) []Span {
	var out []Span
	add := func(a, b int) {
		for b-a > maxChars {
			cut := a + maxChars
			for cut > a && !utf8.RuneStart(norm[cut]) {
				cut--
			}
			if sp := strings.LastIndexByte(norm[a:cut], ' '); sp > 0 {
				cut = a + sp
			}
			out = append(out, Span{Start: a, End: cut})
			a = cut
			if a < b && norm[a] == ' ' {
				a++
			}
		}
		if b > a {
			out = append(out, Span{Start: a, End: b})
		}
	}
	start := 0
	for i := 0; i < len(norm); i++ {
		if norm[i] != ' ' || i == 0 {
			continue
		}
		switch norm[i-1] {
		case '.', '!', '?':
			add(start, i)
			start = i + 1
		}
	}
	add(start, len(norm))
	return out
}
