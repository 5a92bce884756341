package shortlist

import (
	"slices"
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://Example.com/a/?utm_source=x&b=2&a=1#frag", "https://example.com/a?a=1&b=2"},
		{"https://www.example.com/post/", "https://example.com/post"},
		{"http://example.com:80/x", "http://example.com/x"},
		{"https://example.com/", "https://example.com/"},
		{"https://example.com/a/./b/../c", "https://example.com/a/c"},
		{"https://example.com/p?gclid=1&fbclid=2&yclid=3&mc_cid=4&mc_eid=5&ref=6&ref_src=7&igshid=8", "https://example.com/p"},
		{"https://example.com/p?intcmp=1&abcmp=2&componentEventParams=3&acquisitionData=4&refType=5&id=9", "https://example.com/p?id=9"},
		{"https://example.com/p/?x=1", "https://example.com/p?x=1"},
		{"https://example.com/?x=1", "https://example.com/?x=1"},
	} {
		got, err := canonical(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("canonical(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"ftp://example.com/x", "file:///etc/passwd", "not a url", "https://"} {
		if got, err := canonical(bad); err == nil {
			t.Errorf("canonical(%q) = %q, want an error", bad, got)
		}
	}
}

func TestParsePrompt(t *testing.T) {
	for _, tc := range []struct {
		in    string
		seeds []string
		query string
	}{
		{"summarize https://example.com/a, please", []string{"https://example.com/a"}, "summarize please"},
		{"compare go.dev/blog and (https://rust-lang.org/learn).", []string{"https://rust-lang.org/learn", "https://go.dev/blog"}, "compare and"},
		{"what changed in main.go?", nil, "what changed in main.go?"},
		{"no urls here", nil, "no urls here"},
	} {
		seeds, q := parsePrompt(tc.in)
		if !slices.Equal(seeds, tc.seeds) || q != tc.query {
			t.Errorf("parsePrompt(%q) = %q, %q; want %q, %q", tc.in, seeds, q, tc.seeds, tc.query)
		}
	}
}

func TestSearchBudget(t *testing.T) {
	for _, tc := range []struct {
		total, n int
		want     []int
	}{
		{40, 1, []int{40}},
		{40, 2, []int{20, 20}},
		{40, 3, []int{20, 10, 10}},
		{40, 4, []int{20, 6, 6, 6}},
		{3, 5, []int{1, 1, 1, 1, 1}},
		{40, 0, nil},
	} {
		if got := searchBudget(tc.total, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("searchBudget(%d, %d) = %v, want %v", tc.total, tc.n, got, tc.want)
		}
	}
}

func TestSearchQueries(t *testing.T) {
	o := Defaults()
	long := strings.Repeat("Raft consensus leader election under network partitions in etcd clusters. ", 4)
	for _, tc := range []struct {
		name   string
		query  string
		subs   []string
		corpus []CorpusDoc
		want   []string
	}{
		{name: "short query verbatim", query: "raft leader election", want: []string{"raft leader election"}},
		{name: "sub-queries win", query: "raft", subs: []string{"raft", "raft election", "raft"}, want: []string{"raft", "raft election"}},
		{name: "long query to keyphrases", query: long, want: []string{strings.Join(Keyphrases(long, 20)[:min(5, len(Keyphrases(long, 20)))], " ")}},
		{name: "capped fallback", query: strings.Repeat("what is it ", 70), want: []string{strings.Repeat("what is it ", 70)[:600]}},
		{name: "capped keyphrases", query: strings.Repeat("x", 700), want: []string{strings.Repeat("x", 600)}},
		{name: "corpus titles", query: "raft", corpus: []CorpusDoc{
			{Title: "etcd_operations.pdf", Text: "Snapshot and compaction of etcd clusters."},
			{Title: "", Text: "untitled"},
		}, want: []string{"raft snapshot etcd operations compaction etcd clusters untitled", `"etcd operations" snapshot etcd operations compaction etcd clusters untitled`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kps := contentTokens(tc.query)
			if len(tc.query) >= o.KeyphraseMinQueryChars {
				kps = Keyphrases(tc.query, o.KeyphraseTopK)
			}
			got := o.searchQueries(tc.query, kps, tc.subs, tc.corpus)
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if tc.name != "corpus titles" && !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if tc.name == "corpus titles" && (!strings.HasPrefix(got[0], "raft ") || !strings.HasPrefix(got[1], `"etcd operations" `)) {
				t.Fatalf("got %q", got)
			}
		})
	}
}

func TestSeedLinkAndNoisePaths(t *testing.T) {
	for u, want := range map[string]bool{
		"https://example.com/blog/raft":            true,
		"https://support.example.com/raft":         false,
		"https://accounts.example.com/x":           false,
		"https://id.example.com/x":                 false,
		"https://example.com/login?next=/raft":     false,
		"https://example.com/legal/privacy":        false,
		"https://example.com/newsletter/subscribe": false,
		"mailto:a@example.com":                     false,
		"javascript:void(0)":                       false,
	} {
		if got := keepSeedLink(u); got != want {
			t.Errorf("keepSeedLink(%q) = %v", u, got)
		}
	}
	for u, want := range map[string]bool{
		"https://example.com/tag/raft":        true,
		"https://example.com/category/go/":    true,
		"https://example.com/signin":          true,
		"https://example.com/preferences":     true,
		"https://example.com/edition/uk/news": true,
		"https://example.com/raft-tagging":    false,
		"https://example.com/2024/raft":       false,
	} {
		if got := noisyPath(u); got != want {
			t.Errorf("noisyPath(%q) = %v", u, got)
		}
	}
}
