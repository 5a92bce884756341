package shortlist

import (
	"slices"
	"strings"
	"testing"
)

func TestKeyphrases(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		top        int
		want       []string // each must be inside one of the results
		first      string   // the best phrase, when set
		not        []string // must not appear as a phrase
	}{
		{
			name:  "raft question",
			text:  "How does the Raft consensus algorithm handle leader election when the network partitions? I am building a distributed key-value store in Go and want to know what happens to in-flight writes during a partition, and how etcd implements pre-vote to avoid disruptive elections.",
			top:   12,
			first: "raft consensus algorithm",
			want:  []string{"network partitions", "leader election", "key-value", "disruptive elections", "etcd"},
			not:   []string{"how", "the raft", "consensus algorithm"},
		},
		{
			name: "proper nouns",
			text: "Latest news about the James Webb Space Telescope and its observations of early galaxies.",
			top:  5,
			want: []string{"webb space", "early galaxies", "telescope"},
			not:  []string{"webb space telescope"}, // half covered by "james webb space"
		},
		{name: "only stopwords", text: "what is it and how do we do it?", top: 5},
		{name: "top zero", text: "Raft consensus", top: 0},
		{name: "numbers", text: "Go 1.26 release notes for 2026", top: 5, want: []string{"release notes", "2026"}, not: []string{"1.26", "go"}},
		{name: "acronym", text: "The SSRF guard in the HTTP client blocks loopback addresses. SSRF attacks use redirects.", top: 4, want: []string{"ssrf", "loopback addresses"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Keyphrases(tc.text, tc.top)
			if len(got) > tc.top {
				t.Fatalf("%d phrases > top %d", len(got), tc.top)
			}
			if tc.want == nil && tc.first == "" && len(got) != 0 {
				t.Fatalf("want none, got %q", got)
			}
			if tc.first != "" && (len(got) == 0 || got[0] != tc.first) {
				t.Errorf("first = %q, want %q", got, tc.first)
			}
			for _, w := range tc.want {
				if !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, w) }) {
					t.Errorf("%q missing from %q", w, got)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(got, n) {
					t.Errorf("%q should not be in %q", n, got)
				}
			}
			if again := Keyphrases(tc.text, tc.top); !slices.Equal(got, again) {
				t.Errorf("not deterministic: %q vs %q", got, again)
			}
		})
	}
}

func TestContentTokens(t *testing.T) {
	got := contentTokens("What is the Raft leader election, and how does Raft use terms?")
	if want := []string{"raft", "leader", "election", "terms"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestExpandQuery(t *testing.T) {
	long := "Compare PostgreSQL logical replication with MySQL binlog replication for zero-downtime migrations of large tables"
	for _, tc := range []struct {
		name string
		q    string
		max  int
		n    int
	}{
		{"short query stays whole", "raft leader election", 4, 1},
		{"max one", long, 1, 1},
		{"long query expands", long, 4, 3},
		{"cap respected", long + " across regions with logical decoding plugins and change data capture pipelines", 3, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ExpandQuery(tc.q, tc.max)
			if len(got) != tc.n || got[0] != strings.TrimSpace(tc.q) {
				t.Fatalf("ExpandQuery = %q (want %d, original first)", got, tc.n)
			}
			for _, sub := range got[1:] {
				if n := len(strings.Fields(sub)); n < 2 || n > 9 {
					t.Errorf("sub-query %q has %d words", sub, n)
				}
			}
			if again := ExpandQuery(tc.q, tc.max); !slices.Equal(got, again) {
				t.Errorf("not deterministic")
			}
		})
	}
}
