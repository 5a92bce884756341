package research

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// checkSpans asserts the chunker invariants: non-empty, bounded, valid
// UTF-8, in order, overlapping or adjacent, covering the collapsed text.
func checkSpans(t *testing.T, text string, c Chunker, spans []Span) {
	t.Helper()
	norm := CollapseSpace(text)
	maxChars, _, _ := c.limits()
	if norm == "" {
		if len(spans) != 0 {
			t.Fatalf("chunks for empty text: %+v", spans)
		}
		return
	}
	if len(spans) == 0 {
		t.Fatal("no chunks for non-empty text")
	}
	if spans[0].Start != 0 || spans[len(spans)-1].End != len(norm) {
		t.Fatalf("chunks cover [%d,%d) of %d", spans[0].Start, spans[len(spans)-1].End, len(norm))
	}
	for i, s := range spans {
		if s.Text == "" || strings.TrimSpace(s.Text) == "" {
			t.Fatalf("chunk %d empty", i)
		}
		if len(s.Text) > maxChars+minTail(maxChars) || (i < len(spans)-1 && len(s.Text) > maxChars) {
			t.Fatalf("chunk %d has %d bytes > %d", i, len(s.Text), maxChars)
		}
		if !utf8.ValidString(s.Text) || s.Text != norm[s.Start:s.End] {
			t.Fatalf("chunk %d text/offsets mismatch", i)
		}
		if i > 0 {
			p := spans[i-1]
			if s.Start <= p.Start || s.End <= p.End {
				t.Fatalf("chunk %d not monotonic", i)
			}
			if s.Start > p.End+1 { // at most the separating space is skipped
				t.Fatalf("gap between chunk %d and %d", i-1, i)
			}
		}
	}
}

func TestChunkerTable(t *testing.T) {
	sentence := "The pager rolls back the journal when a transaction fails. "
	tests := []struct {
		name       string
		text       string
		c          Chunker
		wantChunks int
	}{
		{"empty", "", Chunker{}, 0},
		{"spaces only", " \n\t ", Chunker{}, 0},
		{"one sentence", "Hello world.", Chunker{}, 1},
		{"many sentences", strings.Repeat(sentence, 100), Chunker{Size: 64, Overlap: 16}, 0},
		{"one huge word", strings.Repeat("x", 5000), Chunker{Size: 64, Overlap: 8}, 20},
		{"crlf and tabs", "a\r\nb\tc.  D e.\r\n", Chunker{}, 1},
		{"emoji zwj", strings.Repeat("👩‍👩‍👧‍👦 family. ", 200), Chunker{Size: 32, Overlap: 4}, 0},
		{"markdown table", strings.Repeat("| a | b |\n|---|---|\n| 1 | 2 |\n", 100), Chunker{Size: 32, Overlap: 8}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans, err := tt.c.Split(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			checkSpans(t, tt.text, tt.c, spans)
			if tt.wantChunks > 0 && len(spans) != tt.wantChunks {
				t.Fatalf("got %d chunks, want %d", len(spans), tt.wantChunks)
			}
		})
	}
}

func TestChunkerSentenceAwareOverlap(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 60; i++ {
		b.WriteString("Sentence number ")
		b.WriteString(itoa(i))
		b.WriteString(" says something useful about retrieval. ")
	}
	c := Chunker{Size: 64, Overlap: 16}
	spans, err := c.Split(b.String())
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range spans {
		if !strings.HasPrefix(s.Text, "Sentence number") || !strings.HasSuffix(s.Text, "retrieval.") {
			t.Fatalf("chunk %d does not start/end on sentence boundaries: %q", i, s.Text)
		}
		if i > 0 && s.Start >= spans[i-1].End {
			t.Fatalf("chunk %d has no overlap with the previous one", i)
		}
	}
}

func TestChunkerRejectsBadParams(t *testing.T) {
	for _, c := range []Chunker{{Size: 10, Overlap: 10}, {Size: 10, Overlap: 20}, {Size: -1}} {
		if _, err := c.Split("text"); err == nil {
			t.Fatalf("%+v accepted", c)
		}
	}
}

func FuzzChunker(f *testing.F) {
	f.Add("", 256, 48)
	f.Add(strings.Repeat("word ", 3000), 64, 8)
	f.Add(strings.Repeat("x", 100000), 32, 4)
	f.Add("a\r\nb. C! D? e", 16, 2)
	f.Add("👩‍👩‍👧‍👦. 👩‍👩‍👧‍👦 ", 4, 1)
	f.Add("Table 2(3) shows. F(1, 20) = 3.2; p < .05", 8, 2)
	f.Add("x\xff\xfe y. z", 8, 2)
	f.Fuzz(func(t *testing.T, text string, size, overlap int) {
		c := Chunker{Size: size % 600, Overlap: overlap % 600}
		spans, err := c.Split(text)
		if err != nil {
			if _, _, lerr := c.limits(); lerr == nil {
				t.Fatalf("Split failed with valid params: %v", err)
			}
			return
		}
		checkSpans(t, text, c, spans)
	})
}

// collapseSpaceRef is the plain rune loop CollapseSpace must agree with.
func collapseSpaceRef(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if r == utf8.RuneError {
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

func FuzzCollapseSpace(f *testing.F) {
	for _, s := range []string{"", "  a \t b\n\nc  ", "caf\xe9 \u00a0x\u2003y\u0085z", "\ufffd a", "x\x00\x7f y", "日本 語\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := CollapseSpace(s), collapseSpaceRef(s); got != want {
			t.Fatalf("CollapseSpace(%q) = %q, want %q", s, got, want)
		}
	})
}
