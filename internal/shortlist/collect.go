package shortlist

import (
	"net/url"
	"slices"
	"strings"

	"github.com/askygo/asky/internal/fetch"
)

// parsePrompt splits a prompt into the URLs it names (explicit http(s)
// URLs and bare domains, which get https://) and the remaining query.
func parsePrompt(prompt string) (seeds []string, query string) {
	seeds = fetch.ExtractURLs(prompt)
	query = prompt
	for _, s := range seeds {
		query = strings.Replace(query, s, " ", 1)
		query = strings.Replace(query, strings.TrimPrefix(s, "https://"), " ", 1)
	}
	var words []string
	for _, w := range strings.Fields(query) {
		// Punctuation left behind by a removed URL ("see URL, and …").
		if strings.Trim(w, ".,;:!?()[]<>\"'") != "" {
			words = append(words, w)
		}
	}
	return seeds, strings.Join(words, " ")
}

// searchQueries builds the web queries (§5.5 step 2): the sub-queries when
// query expansion ran, else the first search_phrase_count keyphrases of a
// long query, else the query itself; with a corpus, the first query gets
// the corpus keyphrases and each corpus title becomes a query of its own.
func (o Options) searchQueries(query string, kps, subQueries []string, corpus []CorpusDoc) []string {
	var qs []string
	switch {
	case len(subQueries) > 0:
		qs = append(qs, subQueries...)
	case len(query) >= o.KeyphraseMinQueryChars && len(kps) > 0:
		qs = append(qs, capRunes(strings.Join(kps[:min(len(kps), o.SearchPhraseCount)], " "), o.QueryFallbackChars))
	case query != "":
		qs = append(qs, capRunes(query, o.QueryFallbackChars))
	}
	if len(corpus) > 0 {
		var lead strings.Builder
		for _, d := range corpus {
			lead.WriteString(cleanTitle(d.Title) + ".\n" + capRunes(d.Text, o.CorpusLeadChars) + "\n")
		}
		// The corpus keyphrases the query does not already say.
		have := map[string]bool{}
		for _, w := range contentTokens(query) {
			have[w] = true
		}
		var ckps []string
		for _, k := range Keyphrases(lead.String(), o.CorpusMaxKeyphrases) {
			if slices.ContainsFunc(strings.Fields(k), func(w string) bool { return !have[w] }) {
				ckps = append(ckps, k)
			}
		}
		top := strings.Join(ckps[:min(5, len(ckps))], " ")
		if len(qs) > 0 && top != "" {
			qs[0] += " " + top
		}
		n := 0
		for _, d := range corpus {
			t := cleanTitle(d.Title)
			if t == "" || n == o.CorpusMaxQueryTitles {
				continue
			}
			qs = append(qs, strings.TrimSpace(`"`+t+`" `+top))
			n++
		}
	}
	return dedupeStrings(qs)
}

// cleanTitle drops file extensions and separators from a document title.
func cleanTitle(t string) string {
	t = strings.TrimSpace(t)
	if i := strings.LastIndexByte(t, '.'); i > 0 && len(t)-i <= 5 && !strings.ContainsAny(t[i:], " ") {
		t = t[:i]
	}
	t = strings.NewReplacer("_", " ", "-", " ", `"`, "").Replace(t)
	return strings.Join(strings.Fields(t), " ")
}

// searchBudget splits total results over n queries: one query gets all;
// otherwise the first (the user's own wording) gets half and the rest
// share the other half evenly, each at least one.
func searchBudget(total, n int) []int {
	if n <= 0 || total <= 0 {
		return nil
	}
	if n == 1 {
		return []int{total}
	}
	out := make([]int, n)
	out[0] = max(1, total/2)
	rest := max(1, (total-out[0])/(n-1))
	for i := 1; i < n; i++ {
		out[i] = rest
	}
	return out
}

// skipHostPrefixes and skipPathWords mark links on a seed page that lead
// to account, support or legal pages rather than content.
var (
	skipHostPrefixes = []string{"profile.", "support.", "accounts.", "account.", "id."}
	skipPathWords    = []string{"login", "signin", "sign-in", "signup", "sign-up", "account", "privacy", "terms", "cookie", "subscribe", "logout", "register"}
)

// keepSeedLink reports whether a link found on a seed page is a candidate.
func keepSeedLink(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	for _, p := range skipHostPrefixes {
		if strings.HasPrefix(host, p) {
			return false
		}
	}
	p := strings.ToLower(u.Path)
	for _, w := range skipPathWords {
		if strings.Contains(p, w) {
			return false
		}
	}
	return true
}

// noisePaths are path parts of listing, account and legal pages.
var noisePaths = []string{"/tag/", "/tags/", "/category/", "/categories/", "/login", "/signin", "/sign-in", "/signup",
	"/sign-up", "/register", "/privacy", "/terms", "/cookie", "/subscribe", "/preference/", "/preferences/",
	"/account/", "/accounts/", "/edition/"}

// noisyPath reports a listing, account or legal page.
func noisyPath(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	p := strings.ToLower(u.Path) + "/"
	for _, n := range noisePaths {
		if strings.Contains(p, n) {
			return true
		}
	}
	return false
}

// canonical is the dedupe key of a URL: fetch.Normalize (tracking
// parameters stripped, host lowercased, default port and fragment
// dropped, query sorted) plus a dropped "www." and a trailing slash
// after a path (the root keeps its slash), so
// the same article reached two ways is one candidate.
func canonical(raw string) (string, error) {
	n, err := fetch.Normalize(raw)
	if err != nil {
		return "", err
	}
	n = strings.Replace(n, "://www.", "://", 1)
	base, q, hasQ := strings.Cut(n, "?")
	if i := strings.Index(base, "://"); strings.Count(base[i+3:], "/") > 1 || !strings.HasSuffix(base, "/") {
		base = strings.TrimSuffix(base, "/")
	}
	if hasQ {
		return base + "?" + q, nil
	}
	return base, nil
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

func dedupeStrings(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range in {
		k := strings.ToLower(strings.TrimSpace(s))
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

// capRunes cuts s to at most n runes.
func capRunes(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}
