package shortlist

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The keyphrase extractor is a compact YAKE (Campos et al., 2020), the
// method the original asky uses. YAKE was kept over TF-IDF, TextRank or
// RAKE because it needs no corpus statistics or model (a prompt is a
// single short document), it is deterministic, it scores n-grams up to
// three words, and it favours terms that appear early, capitalised and
// in few distinct contexts — the words a user puts at the centre of a
// question. Matching the original's method also keeps search queries
// close to what its users are used to. The five term features and the
// n-gram combination follow the paper; its Levenshtein dedupe is replaced
// by a word-overlap check, which is what matters for search queries, and
// phrases never span a stopword.

// token is one word of the text with its sentence and position.
type token struct {
	word     string // lowercase
	sentence int
	upper    bool // capitalised, not at the start of a sentence
	acronym  bool // all capitals, two letters or more
	stop     bool
	// brk is set when punctuation separates this token from the previous one.
	brk bool
}

// tokenize splits text into word tokens. Sentences end at . ! ? and line
// breaks; commas, colons, semicolons, brackets and quotes break n-grams.
func tokenize(text string) []token {
	var out []token
	sentence, first, brk := 0, true, true
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			switch {
			case r == '.' || r == '!' || r == '?' || r == '\n':
				// A dot inside a word (3.5, e.g.) is consumed with the word.
				if !first {
					sentence++
				}
				first, brk = true, true
			case !unicode.IsSpace(r):
				brk = true
			}
			i += n
			continue
		}
		j := i
		for j < len(text) {
			r2, n2 := utf8.DecodeRuneInString(text[j:])
			if isWordRune(r2) {
				j += n2
				continue
			}
			// Keep inner hyphens, apostrophes and dots (e-mail, don't, 3.5).
			if (r2 == '-' || r2 == '\'' || r2 == '.') && j+n2 < len(text) {
				if r3, _ := utf8.DecodeRuneInString(text[j+n2:]); isWordRune(r3) {
					j += n2
					continue
				}
			}
			break
		}
		raw := text[i:j]
		low := strings.ToLower(raw)
		fr, _ := utf8.DecodeRuneInString(raw)
		t := token{word: low, sentence: sentence, brk: brk, stop: isStopword(low)}
		letters, uppers := 0, 0
		for _, c := range raw {
			if unicode.IsLetter(c) {
				letters++
				if unicode.IsUpper(c) {
					uppers++
				}
			}
		}
		t.acronym = letters >= 2 && uppers == letters
		t.upper = !first && unicode.IsUpper(fr)
		out = append(out, t)
		first, brk = false, false
		i = j
	}
	return out
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// termStats are the YAKE features of one lowercase term.
type termStats struct {
	tf, tfUpper, tfAcronym int
	sentences              []int
	left, right            map[string]int
	score                  float64
}

// Keyphrases returns up to top keyphrases of text (one to three words),
// best first, lowercase. Phrases hold no stopword,
// and a phrase half made of a better phrase's words is dropped.
func Keyphrases(text string, top int) []string {
	if top <= 0 {
		return nil
	}
	toks := tokenize(text)
	terms := map[string]*termStats{}
	nSent := 0
	for i, t := range toks {
		nSent = max(nSent, t.sentence+1)
		if t.stop || !contentWord(t.word) {
			continue
		}
		s := terms[t.word]
		if s == nil {
			s = &termStats{left: map[string]int{}, right: map[string]int{}}
			terms[t.word] = s
		}
		s.tf++
		if t.upper {
			s.tfUpper++
		}
		if t.acronym {
			s.tfAcronym++
		}
		s.sentences = append(s.sentences, t.sentence)
		// Co-occurrence window of two words within the sentence.
		for d := 1; d <= 2; d++ {
			if j := i - d; j >= 0 && toks[j].sentence == t.sentence {
				s.left[toks[j].word]++
			}
			if j := i + d; j < len(toks) && toks[j].sentence == t.sentence {
				s.right[toks[j].word]++
			}
		}
	}
	if len(terms) == 0 {
		return nil
	}
	scoreTerms(terms, nSent)

	type cand struct {
		words []string
		tf    int
		first int
		score float64
	}
	cands := map[string]*cand{}
	for i := range toks {
		for n := 1; n <= 3 && i+n <= len(toks); n++ {
			seq := toks[i : i+n]
			if seq[n-1].sentence != seq[0].sentence || (n > 1 && slices.ContainsFunc(seq[1:], func(t token) bool { return t.brk })) {
				break
			}
			if slices.ContainsFunc(seq, func(t token) bool { return t.stop || !contentWord(t.word) }) {
				break
			}
			words := make([]string, n)
			for k, t := range seq {
				words[k] = t.word
			}
			key := strings.Join(words, " ")
			c := cands[key]
			if c == nil {
				c = &cand{words: words, first: i}
				cands[key] = c
			}
			c.tf++
		}
	}
	list := make([]*cand, 0, len(cands))
	for _, c := range cands {
		prod, sum := 1.0, 0.0
		for _, w := range c.words {
			if s := terms[w]; s != nil {
				prod *= s.score
				sum += s.score
			}
		}
		c.score = prod / (float64(c.tf) * (1 + sum))
		list = append(list, c)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score < list[j].score
		}
		if len(list[i].words) != len(list[j].words) {
			return len(list[i].words) > len(list[j].words)
		}
		return list[i].first < list[j].first
	})
	var out []string
	var kept [][]string
	for _, c := range list {
		if covered(c.words, kept) {
			continue
		}
		kept = append(kept, c.words)
		out = append(out, strings.Join(c.words, " "))
		if len(out) == top {
			break
		}
	}
	return out
}

// scoreTerms computes the YAKE single-term score (lower is better):
// S = Rel·Pos / (Case + Freq/Rel + Sent/Rel).
func scoreTerms(terms map[string]*termStats, nSent int) {
	var tfs []float64
	maxTF := 0
	for _, s := range terms {
		tfs = append(tfs, float64(s.tf))
		maxTF = max(maxTF, s.tf)
	}
	mean, std := meanStd(tfs)
	for _, s := range terms {
		tf := float64(s.tf)
		tCase := float64(max(s.tfUpper, s.tfAcronym)) / (1 + math.Log(tf))
		tPos := math.Log(math.Log(3 + median(s.sentences)))
		tFreq := tf / (mean + std)
		tRel := 1 + (diversity(s.left)+diversity(s.right))*tf/float64(maxTF)
		tSent := float64(distinct(s.sentences)) / float64(max(nSent, 1))
		s.score = tRel * tPos / (tCase + tFreq/tRel + tSent/tRel)
	}
}

// diversity is the share of distinct words among a term's neighbours
// (YAKE's DL/DR): a term next to many different words is generic.
func diversity(ctx map[string]int) float64 {
	total := 0
	for _, n := range ctx {
		total += n
	}
	if total == 0 {
		return 0
	}
	return float64(len(ctx)) / float64(total)
}

// covered reports whether at least half the words of w already appear in
// better phrases: overlapping windows ("raft consensus algorithm",
// "consensus algorithm handle") would waste search-query slots.
func covered(w []string, kept [][]string) bool {
	seen := 0
	for _, x := range w {
		if slices.ContainsFunc(kept, func(k []string) bool { return slices.Contains(k, x) }) {
			seen++
		}
	}
	return 2*seen >= len(w)
}

func meanStd(xs []float64) (mean, std float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)))
}

func median(xs []int) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return float64(s[n/2-1]+s[n/2]) / 2
}

func distinct(xs []int) int {
	n, last := 0, -1
	for _, x := range xs { // sentence indices arrive in order
		if x != last {
			n++
			last = x
		}
	}
	return n
}

// contentWord rejects one-letter words and bare numbers shorter than
// four digits (years stay).
func contentWord(w string) bool {
	if utf8.RuneCountInString(w) < 2 {
		return false
	}
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return true
		}
	}
	return len(w) >= 4
}

// contentTokens returns the distinct non-stopword words of text in order:
// the keyphrases of a query too short for YAKE.
func contentTokens(text string) []string {
	var out []string
	for _, t := range tokenize(text) {
		if !t.stop && contentWord(t.word) && !slices.Contains(out, t.word) {
			out = append(out, t.word)
		}
	}
	return out
}

// ExpandQuery splits a research query into sub-queries (§5.6): the
// original query first, then its top twelve keyphrases grouped by three,
// at most maxSubQueries in all. Queries under 30 characters, or with too
// few keyphrases to form a group, are returned alone.
func ExpandQuery(q string, maxSubQueries int) []string {
	q = strings.TrimSpace(q)
	out := []string{q}
	if len(q) < 30 || maxSubQueries <= 1 {
		return out
	}
	kps := Keyphrases(q, 12)
	for i := 0; i < len(kps) && len(out) < maxSubQueries; i += 3 {
		sub := strings.Join(kps[i:min(i+3, len(kps))], " ")
		if !strings.EqualFold(sub, q) {
			out = append(out, sub)
		}
	}
	return out
}
