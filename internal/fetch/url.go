package fetch

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"golang.org/x/net/idna"
)

// LocalTargetError is returned for local paths and non-web schemes: the
// web tools never read files (local documents go through the corpus).
type LocalTargetError struct{ Target string }

func (e *LocalTargetError) Error() string {
	return fmt.Sprintf("%q is not a web URL: the web tools read only http(s) URLs (local files go through `asky corpus ingest` or -r)", e.Target)
}

// ParseTarget parses a URL the model or a prompt chose, refusing local
// paths, file://, local://, corpus:// and other non-web schemes.
func ParseTarget(raw string) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil, errors.New("empty URL")
	}
	if looksLocal(s) {
		return nil, &LocalTargetError{Target: s}
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("invalid URL %q", s)
	}
	if u.Scheme == "" && u.Host == "" && !strings.HasPrefix(s, "//") && bareDomainRe().MatchString(s) {
		if u2, err2 := url.Parse("https://" + s); err2 == nil {
			u = u2
		}
	}
	if err := CheckTarget(u); err != nil {
		return nil, err
	}
	return u, nil
}

// CheckTarget applies the URL rules that do not need the network.
func CheckTarget(u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "file", "local", "corpus":
		return &LocalTargetError{Target: u.String()}
	case "":
		return fmt.Errorf("URL %q has no scheme; use http:// or https://", u.String())
	default:
		return fmt.Errorf("blocked: scheme %q is not allowed (only http and https)", u.Scheme)
	}
	if u.User != nil {
		return errors.New("blocked: URLs with a user name or password are not fetched")
	}
	if u.Hostname() == "" {
		return fmt.Errorf("URL %q has no host", u.String())
	}
	return nil
}

func looksLocal(s string) bool {
	ls := strings.ToLower(s)
	switch {
	case strings.HasPrefix(ls, "file:"), strings.HasPrefix(ls, "local:"), strings.HasPrefix(ls, "corpus:"):
		return true
	case strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//"):
		return true
	case strings.HasPrefix(s, "./"), strings.HasPrefix(s, "../"), strings.HasPrefix(s, "~"), strings.HasPrefix(s, `\`):
		return true
	case len(s) >= 3 && s[1] == ':' && (s[2] == '\\' || s[2] == '/') && isLetter(s[0]):
		return true // C:\ or C:/
	}
	return false
}

func isLetter(b byte) bool { return (b|0x20) >= 'a' && (b|0x20) <= 'z' }

func parseIP(host string) (netip.Addr, error) {
	if ip, ok := ParseHostAddr(host); ok {
		return ip, nil
	}
	return netip.Addr{}, fmt.Errorf("%q is not an IP address", host)
}

// trackingParams are dropped from normalized URLs (asky-behavior §5.5, plus
// common click identifiers); every utm_* key is dropped too.
var trackingParams = map[string]bool{
	"gclid": true, "fbclid": true, "yclid": true, "mc_cid": true, "mc_eid": true, "ref": true,
	"ref_src": true, "igshid": true, "intcmp": true, "abcmp": true, "componenteventparams": true,
	"acquisitiondata": true, "reftype": true, "msclkid": true, "dclid": true, "gbraid": true,
	"wbraid": true, "_ga": true, "_gl": true, "mkt_tok": true,
}

// Normalize returns the canonical form of an http(s) URL, used as the page
// cache key: lowercase scheme and host (IDNA), default port and fragment
// dropped, dot segments removed, tracking parameters stripped and the
// remaining query pairs sorted. It is idempotent.
func Normalize(raw string) (string, error) {
	u, err := ParseTarget(raw)
	if err != nil {
		return "", err
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return "", fmt.Errorf("URL %q has no host", raw)
	}
	if ip, err := parseIP(host); err == nil {
		ip = ip.WithZone("").Unmap()
		host = ip.String()
		if ip.Is6() {
			host = "[" + host + "]"
		}
	} else {
		a, err := idna.Lookup.ToASCII(host)
		if err != nil || a == "" || strings.ContainsAny(a, "/?#@[]\\%: ") || hasEmptyLabel(a) {
			return "", fmt.Errorf("invalid host in %q", raw)
		}
		host = a
	}
	port := u.Port()
	if port != "" {
		port = strings.TrimLeft(port, "0")
		if port == "" {
			port = "0"
		}
	}
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		host += ":" + port
	}
	p := cleanPath(u.EscapedPath())
	q := cleanQuery(u.RawQuery)
	out := scheme + "://" + host + p
	if q != "" {
		out += "?" + q
	}
	// Re-parse so the result is in the same escaped form a second pass
	// would produce.
	if _, err := url.Parse(out); err != nil {
		return "", fmt.Errorf("invalid URL %q", raw)
	}
	return out, nil
}

func hasEmptyLabel(host string) bool {
	for _, l := range strings.Split(host, ".") {
		if l == "" {
			return true
		}
	}
	return false
}

// cleanPath removes dot segments and duplicate slashes, keeping a trailing
// slash, and re-escapes characters url.Parse would otherwise accept raw.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	p = escapeLoose(p, "/")
	trailing := strings.HasSuffix(p, "/")
	c := path.Clean("/" + p)
	if trailing && c != "/" {
		c += "/"
	}
	return c
}

// cleanQuery drops tracking parameters and sorts the remaining pairs by
// key (stable, so repeated keys keep their order).
func cleanQuery(q string) string {
	if q == "" {
		return ""
	}
	var kept []string
	for _, pair := range strings.Split(q, "&") {
		if pair == "" {
			continue
		}
		pair = escapeLoose(pair, "=")
		k, _, _ := strings.Cut(pair, "=")
		uk, err := url.QueryUnescape(k)
		if err != nil {
			uk = k
		}
		uk = strings.ToLower(uk)
		if trackingParams[uk] || strings.HasPrefix(uk, "utm_") {
			continue
		}
		kept = append(kept, pair)
	}
	sort.SliceStable(kept, func(i, j int) bool {
		ki, _, _ := strings.Cut(kept[i], "=")
		kj, _, _ := strings.Cut(kept[j], "=")
		return ki < kj
	})
	return strings.Join(kept, "&")
}

// escapeLoose percent-encodes bytes that are not safe in a path or query
// component (spaces, quotes, non-ASCII, stray '%'), leaving valid escapes
// and the characters in keep alone.
func escapeLoose(s, keep string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteString(strings.ToUpper(s[i : i+3]))
			i += 2
		case strings.IndexByte(keep, c) >= 0 || isUnreservedOrSub(c):
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'f')
}

func isUnreservedOrSub(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;:@/=", c) >= 0
}

// The URL patterns compile on first use: every asky invocation links this
// package, most never look for URLs (the TLD alternation alone costs ~1 ms
// at start-up).
var (
	explicitURLRe = lazyRegexp(`(?i)\bhttps?://[^\s<>"'` + "`" + `]+`)
	// bareDomainRe matches example.com/path style mentions. The TLD must
	// be a common one that does not double as a file extension or a
	// word after a dot, so main.go, README.md, app.py, main.rs,
	// Makefile.in, Safari.app or user.id are not taken for domains.
	bareDomainRe = lazyRegexp(`(?i)^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(` + tldAlternation + `)(?::\d{1,5})?(?:[/?][^\s<>"'` + "`" + `]*)?$`)
	bareTokenRe  = lazyRegexp(`(?i)(?:^|[\s(\[{<"'])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}(?::\d{1,5})?(?:[/?][^\s<>"'` + "`" + `]*)?)`)
)

const tldAlternation = `com|org|net|edu|gov|mil|int|io|dev|ai|co|uk|de|fr|jp|cn|ru|nl|eu|us|ca|au|br|es|it|ch|se|fi|dk|be|at|cz|gr|hu|ie|il|kr|mx|nz|pt|ro|sg|tr|tw|ua|za|info|biz|tv|xyz|news|blog|tech|online|cloud|wiki|gg|fm|ar|cl|vn|th|my|ph|ng|ke|eg|lt|lv|ee|sk|si|hr|bg|lu|museum|science|systems|software|social`

// ExtractURLs finds URLs in a prompt: explicit http(s) URLs and bare
// domains such as example.com/path (returned with https://). Trailing
// punctuation is stripped and duplicates (by normalized form) dropped.
func ExtractURLs(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(u string) {
		n, err := Normalize(u)
		if err != nil || seen[n] {
			return
		}
		seen[n] = true
		out = append(out, u)
	}
	rest := explicitURLRe().ReplaceAllStringFunc(text, func(m string) string {
		add(trimURLPunct(m))
		return " "
	})
	for _, m := range bareTokenRe().FindAllStringSubmatch(rest, -1) {
		tok := trimURLPunct(m[1])
		if strings.Contains(tok, "@") || !bareDomainRe().MatchString(tok) {
			continue
		}
		add("https://" + tok)
	}
	return out
}

// trimURLPunct strips sentence punctuation after a URL, and closing
// brackets that have no opening partner inside the URL.
func trimURLPunct(s string) string {
	for len(s) > 0 {
		c := s[len(s)-1]
		switch {
		case strings.IndexByte(".,;:!?'\"*_", c) >= 0:
			s = s[:len(s)-1]
		case c == ')' && strings.Count(s, "(") < strings.Count(s, ")"),
			c == ']' && strings.Count(s, "[") < strings.Count(s, "]"),
			c == '}' && strings.Count(s, "{") < strings.Count(s, "}"),
			c == '>':
			s = s[:len(s)-1]
		default:
			return s
		}
	}
	return s
}

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
