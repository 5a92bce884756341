package staticemb

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxWordChars is BERT's limit: a longer word becomes one [UNK].
const maxWordChars = 100

// WordPiece is BERT's uncased tokenizer (basic tokenisation, then greedy
// longest-match-first subwords), matching the model's own tokenizer so a
// token id means what the model saw when the table was distilled.
type WordPiece struct {
	words map[string]int32 // word-initial pieces
	conts map[string]int32 // "##" continuation pieces, without the prefix
	unk   int32
	maxW  int // longest entry of each map in bytes: bounds the search
	maxC  int
}

// NewWordPiece indexes a vocabulary (token id = position).
func NewWordPiece(tokens []string) *WordPiece {
	w := &WordPiece{words: make(map[string]int32, len(tokens)), conts: make(map[string]int32, len(tokens)/4), unk: -1}
	for i, t := range tokens {
		if rest, ok := cutPrefix(t, "##"); ok && rest != "" {
			w.conts[rest] = int32(i)
			w.maxC = max(w.maxC, len(rest))
			continue
		}
		w.words[t] = int32(i)
		w.maxW = max(w.maxW, len(t))
		if t == "[UNK]" {
			w.unk = int32(i)
		}
	}
	return w
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}

// Tokenize appends text's token ids to dst (no [CLS]/[SEP]).
func (w *WordPiece) Tokenize(dst []int32, text string) []int32 {
	var buf [64]byte
	word := buf[:0]
	flush := func() {
		if len(word) > 0 {
			dst = w.wordPieces(dst, word)
			word = word[:0]
		}
	}
	if !isASCII(text) {
		text = norm.NFD.String(text)
		for _, r := range text {
			switch {
			case r == 0 || r == utf8.RuneError || isControl(r):
			case isSpace(r):
				flush()
			case isPunct(r) || isCJK(r):
				flush()
				word = utf8.AppendRune(word, r)
				flush()
			case unicode.Is(unicode.Mn, r):
				// Accents are stripped when lower-casing, as BERT uncased does.
			default:
				word = utf8.AppendRune(word, unicode.ToLower(r))
			}
		}
		flush()
		return dst
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			flush()
		case c < 32 || c == 127:
		case (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126):
			flush()
			word = append(word, c)
			flush()
		default:
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			word = append(word, c)
		}
	}
	flush()
	return dst
}

// wordPieces splits one basic token. Map lookups keyed by string(b) do
// not allocate.
func (w *WordPiece) wordPieces(dst []int32, word []byte) []int32 {
	if utf8.RuneCount(word) > maxWordChars {
		return append(dst, w.unk)
	}
	if id, ok := w.words[string(word)]; ok {
		return append(dst, id)
	}
	mark := len(dst)
	start := 0
	for start < len(word) {
		m, limit := w.words, w.maxW
		if start > 0 {
			m, limit = w.conts, w.maxC
		}
		end := min(len(word), start+limit)
		found := int32(-1)
		for ; end > start; end-- {
			if end < len(word) && !utf8.RuneStart(word[end]) {
				continue
			}
			if id, ok := m[string(word[start:end])]; ok {
				found = id
				break
			}
		}
		if found < 0 {
			return append(dst[:mark], w.unk)
		}
		dst = append(dst, found)
		start = end
	}
	return dst
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || unicode.Is(unicode.Zs, r)
}

func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// isPunct is BERT's: every non-alphanumeric ASCII symbol, plus Unicode P*.
func isPunct(r rune) bool {
	if (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126) {
		return true
	}
	return r >= utf8.RuneSelf && unicode.IsPunct(r)
}

func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) || (r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) || (r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B820 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}
