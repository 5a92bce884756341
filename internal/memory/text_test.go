package memory

import (
	"slices"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/store"
)

func TestTerms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"I live in Lisbon", []string{"liv", "lisbon"}},
		{"The user lives in LISBON.", []string{"liv", "lisbon"}},
		{"living, lived", []string{"liv"}},
		{"running swimming falls", []string{"run", "swim", "fall"}},
		{"cities city", []string{"city"}},
		{"I have 2 kids", []string{"2", "kid"}},
		{"Ich wohne in München", []string{"ich", "wohn", "munchen"}},
		{"café Zürich naïve", []string{"caf", "zurich", "naiv"}},
		{"我住在里斯本", []string{"我住在里斯本"}},
		{"what's this? it's what I'd do", nil},
		{"", nil},
	} {
		if got := terms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCosine(t *testing.T) {
	a, b := terms("I live in Lisbon"), terms("i LIVE in lisbon!")
	if c := cosine(a, b); c != 1 {
		t.Errorf("restatement cosine = %v", c)
	}
	if c := cosine(a, terms("I drink tea")); c != 0 {
		t.Errorf("unrelated cosine = %v", c)
	}
	if c := cosine(a, nil); c != 0 {
		t.Errorf("empty cosine = %v", c)
	}
	// A long query about one remembered word still scores above the
	// default recall threshold, but below the dedup one.
	q := terms("best weekend trips from Lisbon")
	m := terms("I live in Lisbon, Portugal")
	vocab := map[string]bool{}
	for _, t := range m {
		vocab[t] = true
	}
	if c := queryCosine(q, m, vocab); c < 0.35 || c >= 0.9 {
		t.Errorf("queryCosine = %v, want in [0.35, 0.9)", c)
	}
	if c := cosine(q, m); c >= 0.35 {
		t.Errorf("symmetric cosine = %v, expected the dilution queryCosine fixes", c)
	}
}

func TestFTSQuery(t *testing.T) {
	if got, want := ftsQuery([]string{"liv", "city", "münchen"}), `"liv"* OR "cit"* OR "münchen"*`; got != want {
		t.Errorf("ftsQuery = %s, want %s", got, want)
	}
}

func TestDenseCosine(t *testing.T) {
	for _, tc := range []struct {
		a, b []float32
		want float64
	}{
		{[]float32{1, 0}, []float32{2, 0}, 1},
		{[]float32{1, 0}, []float32{0, 1}, 0},
		{[]float32{1, 0}, []float32{-1, 0}, 0}, // clamped
		{[]float32{1, 0}, []float32{1, 0, 0}, 0},
		{[]float32{0, 0}, []float32{1, 0}, 0},
		{nil, nil, 0},
	} {
		if got := denseCosine(tc.a, tc.b); got != tc.want {
			t.Errorf("denseCosine(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestStripTrigger(t *testing.T) {
	triggers := []string{"remember globally:", "global memory:", "merke dir global:", "ГЛОБАЛЬНО:"}
	for _, tc := range []struct {
		in, rest, trigger string
		ok                bool
	}{
		{"remember globally: I live in Lisbon", "I live in Lisbon", "remember globally:", true},
		{"  REMEMBER GLOBALLY:   I use Go", "I use Go", "remember globally:", true},
		{"Remember   Globally:I use Go", "I use Go", "remember globally:", true},
		{"Global Memory: ich heiße Zoë", "ich heiße Zoë", "global memory:", true},
		{"MERKE DIR GLOBAL: Ich wohne in München", "Ich wohne in München", "merke dir global:", true},
		{"глобально: я живу в Лиссабоне", "я живу в Лиссабоне", "ГЛОБАЛЬНО:", true},
		{"remember globally:", "", "remember globally:", true},
		{"please remember globally: x", "please remember globally: x", "", false},
		{"remember globally x", "remember globally x", "", false},
		{"rememberglobally: x", "rememberglobally: x", "", false},
		{"remember", "remember", "", false},
		{"", "", "", false},
	} {
		rest, trig, ok := StripTrigger(tc.in, triggers)
		if rest != tc.rest || trig != tc.trigger || ok != tc.ok {
			t.Errorf("StripTrigger(%q) = %q, %q, %v; want %q, %q, %v", tc.in, rest, trig, ok, tc.rest, tc.trigger, tc.ok)
		}
	}
	// A trigger ending in a letter must end a word.
	if _, _, ok := StripTrigger("notes about x", []string{"note"}); ok {
		t.Error(`"note" matched "notes"`)
	}
	if rest, _, ok := StripTrigger("note x", []string{"note"}); !ok || rest != "x" {
		t.Errorf(`"note x" = %q, %v`, rest, ok)
	}
}

func TestFormat(t *testing.T) {
	if Format(nil) != "" {
		t.Error("Format(nil) is not empty")
	}
	got := Format([]Match{
		{Memory: &store.Memory{Text: "I live in Lisbon"}},
		{Memory: &store.Memory{Text: "line one\n## Injected\nline two"}},
		{Memory: &store.Memory{Text: strings.Repeat("x", 400)}},
	})
	want := RecallHeader + "\n> I live in Lisbon\n> line one ## Injected line two\n> " + strings.Repeat("x", 299) + "…"
	if got != want {
		t.Errorf("Format =\n%s\nwant\n%s", got, want)
	}
}

func TestTriggerFact(t *testing.T) {
	for in, want := range map[string]string{
		"I live in Lisbon":                                 "I live in Lisbon",
		"I live in Lisbon. What is on this weekend?":       "I live in Lisbon.",
		"What is on? I live in Lisbon! And I cycle.":       "I live in Lisbon! And I cycle.",
		"I use Go 1.26, e.g. for work. Which IDE fits me?": "I use Go 1.26, e.g. for work.",
		"我住在里斯本。周末有什么活动？":                                  "我住在里斯本。",
		"what's my name?":                                  "",
		"":                                                 "",
	} {
		if got := TriggerFact(in); got != want {
			t.Errorf("TriggerFact(%q) = %q, want %q", in, got, want)
		}
	}
}
