package staticemb

import (
	"strings"
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
	ids   map[string]int32
	unk   int32
	maxTk int // longest vocab entry in bytes: bounds the subword search
}

// NewWordPiece indexes a vocabulary (token id = position).
func NewWordPiece(tokens []string) *WordPiece {
	w := &WordPiece{ids: make(map[string]int32, len(tokens)), unk: -1}
	for i, t := range tokens {
		w.ids[t] = int32(i)
		w.maxTk = max(w.maxTk, len(t))
		if t == "[UNK]" {
			w.unk = int32(i)
		}
	}
	return w
}

// Tokenize appends text's token ids to dst (no [CLS]/[SEP]).
func (w *WordPiece) Tokenize(dst []int32, text string) []int32 {
	var word strings.Builder
	flush := func() {
		if word.Len() > 0 {
			dst = w.wordPieces(dst, word.String())
			word.Reset()
		}
	}
	ascii := isASCII(text)
	if !ascii {
		text = norm.NFD.String(text)
	}
	for _, r := range text {
		switch {
		case r == 0 || r == utf8.RuneError || isControl(r):
			continue
		case isSpace(r):
			flush()
		case isPunct(r) || isCJK(r):
			flush()
			word.WriteRune(r)
			flush()
		case !ascii && unicode.Is(unicode.Mn, r):
			// Accents are stripped when lower-casing, as BERT uncased does.
			continue
		default:
			word.WriteRune(unicode.ToLower(r))
		}
	}
	flush()
	return dst
}

func (w *WordPiece) wordPieces(dst []int32, word string) []int32 {
	if utf8.RuneCountInString(word) > maxWordChars {
		return append(dst, w.unk)
	}
	if id, ok := w.ids[word]; ok {
		return append(dst, id)
	}
	mark := len(dst)
	start := 0
	for start < len(word) {
		end := min(len(word), start+w.maxTk)
		found := int32(-1)
		for end > start {
			if end < len(word) && !utf8.RuneStart(word[end]) {
				end--
				continue
			}
			sub := word[start:end]
			if start > 0 {
				sub = "##" + sub
			}
			if id, ok := w.ids[sub]; ok {
				found = id
				break
			}
			end--
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
