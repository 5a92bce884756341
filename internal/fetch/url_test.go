package fetch

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"HTTP://Ex.com:80/a/../b?#f", "http://ex.com/b"},
		{"https://Example.COM:443", "https://example.com/"},
		{"https://example.com:8443/x/", "https://example.com:8443/x/"},
		{"https://example.com/a//b/./c", "https://example.com/a/b/c"},
		{"https://example.com/p?utm_source=x&b=2&a=1&fbclid=zz&gclid=1#top", "https://example.com/p?a=1&b=2"},
		{"https://example.com/p?ref=hn&UTM_Campaign=y", "https://example.com/p"},
		{"https://example.com/p?q=go%20lang&x", "https://example.com/p?q=go%20lang&x"},
		{"https://example.com/a b", "https://example.com/a%20b"},
		{"https://bücher.example/", "https://xn--bcher-kva.example/"},
		{"https://example.com./", "https://example.com/"},
		{"http://[::FFFF:127.0.0.1]:80/", "http://127.0.0.1/"},
		{"http://[2001:DB8::1]/", "http://[2001:db8::1]/"},
		{"example.com/path", "https://example.com/path"},
	}
	for _, tc := range cases {
		got, err := Normalize(tc.in)
		if err != nil {
			t.Errorf("Normalize(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
		again, err := Normalize(got)
		if err != nil || again != got {
			t.Errorf("not idempotent: %q -> %q -> %q (%v)", tc.in, got, again, err)
		}
	}
	for _, bad := range []string{"", "javascript:alert(1)", "file:///etc/passwd", "ftp://x/", "//host/x", "http://", "http://user@x.com/", "/etc/hosts", "C:\\Users\\x", "local://doc"} {
		if got, err := Normalize(bad); err == nil {
			t.Errorf("Normalize(%q) = %q, want error", bad, got)
		}
	}
	var le *LocalTargetError
	if _, err := Normalize("file:///etc/passwd"); !errors.As(err, &le) {
		t.Errorf("file: not a LocalTargetError: %v", err)
	}
}

func TestExtractURLs(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"summarize https://example.org/post", []string{"https://example.org/post"}},
		{"see https://example.org/post.", []string{"https://example.org/post"}},
		{"(https://example.org/a_(b)) and https://x.io/y?z=1,", []string{"https://example.org/a_(b)", "https://x.io/y?z=1"}},
		{"compare example.com/path and go.dev/blog!", []string{"https://example.com/path", "https://go.dev/blog"}},
		{"what is on news.ycombinator.com?", []string{"https://news.ycombinator.com"}},
		{"e.g. this, i.e. that, U.S. policy", nil},
		{"fix main.go and README.md and app.py and script.sh", nil},
		{"version 1.2.3 of node.js", nil},
		{"edit main.rs, Makefile.in and user.id; open Terminal.app; see notes.txt or index.html", nil},
		{"package.json, config.toml, style.css, Dr. Smith, approx. 5.5 km", nil},
		{"golang.org/x/net and pkg.go.dev", []string{"https://golang.org/x/net", "https://pkg.go.dev"}},
		{"mail me at bob@example.com", nil},
		{"https://a.com/x https://A.com/x#frag", []string{"https://a.com/x"}},
		{"<https://example.org/x>", []string{"https://example.org/x"}},
		{`"https://example.org/q"`, []string{"https://example.org/q"}},
		{"no urls here", nil},
		{"http://localhost:8080/status", []string{"http://localhost:8080/status"}},
	}
	for _, tc := range cases {
		got := ExtractURLs(tc.in)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ExtractURLs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseTargetRefusesLocal(t *testing.T) {
	for _, s := range []string{"/etc/passwd", "./notes.md", "../x", "~/x", "file:///x", "local:///x", "corpus://cache/1", `C:\x`, "C:/x"} {
		_, err := ParseTarget(s)
		var le *LocalTargetError
		if !errors.As(err, &le) {
			t.Errorf("ParseTarget(%q) = %v, want LocalTargetError", s, err)
		} else if !strings.Contains(err.Error(), "web URL") {
			t.Errorf("message %q", err)
		}
	}
}

func FuzzURLNormalize(f *testing.F) {
	for _, s := range []string{"HTTP://Ex.com:80/a/../b?#f", "http://[::ffff:127.0.0.1]", "http://2130706433", "//host",
		"javascript:", "http://ex.com/a b?c=%zz", "https://x.com/?utm_source=1&a=%41", "https://ü.example/ä?ö=1",
		"http://x.com:0080/", "https://x.com/%2e%2e/a", "example.com/a?b", "http://x.com/a?b=1&&c",
		"http://127.1/", "http://0x7f000001/", "http://0177.0.0.1/", "http://127.000.000.001/", "http://0/", "http://127.1./"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		n, err := Normalize(raw)
		if err != nil {
			return
		}
		if !strings.HasPrefix(n, "http://") && !strings.HasPrefix(n, "https://") {
			t.Fatalf("Normalize(%q) = %q: not http(s)", raw, n)
		}
		if strings.Contains(n, "#") {
			t.Fatalf("Normalize(%q) = %q keeps a fragment", raw, n)
		}
		n2, err := Normalize(n)
		if err != nil {
			t.Fatalf("Normalize(%q) = %q, which fails to normalize again: %v", raw, n, err)
		}
		if n2 != n {
			t.Fatalf("not idempotent: %q -> %q -> %q", raw, n, n2)
		}
		u, _ := ParseTarget(n)
		if u.User != nil {
			t.Fatalf("userinfo kept in %q", n)
		}
	})
}
