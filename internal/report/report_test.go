package report

import (
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestHTMLIsInert(t *testing.T) {
	md := "# Hi\n\n<script>alert(1)</script>\n\n![chart](https://tracker.example/pixel.png)\n\n" +
		"[bad](javascript:alert(1))\n\n```go\nfunc main() { x := 1 }\n```\n"
	page, err := HTML("<t>", md, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, bad := range []string{"<script>", "<img", "javascript:"} {
		if strings.Contains(s, bad) {
			t.Errorf("page contains %q:\n%s", bad, s)
		}
	}
	for _, want := range []string{
		"<title>&lt;t&gt;</title>",
		`content="` + CSP + `"`,
		`<a class="img" href="https://tracker.example/pixel.png">chart</a>`,
		// chroma colours the keyword with an inline style.
		`<span style="`,
		">func</span>",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q:\n%s", want, s)
		}
	}
}

func TestOpenerCommand(t *testing.T) {
	onPath := func(names ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			for _, x := range names {
				if x == n {
					return "/usr/bin/" + n, nil
				}
			}
			return "", exec.ErrNotFound
		}
	}
	env := func(v string) func(string) string { return func(string) string { return v } }
	got, err := Opener{Getenv: env("firefox --new-tab"), LookPath: onPath("firefox")}.Command("/r.html")
	if err != nil || !reflect.DeepEqual(got, []string{"firefox", "--new-tab", "/r.html"}) {
		t.Errorf("BROWSER: %q %v", got, err)
	}
	_, err = Opener{Getenv: env("nosuch"), LookPath: onPath()}.Command("/r.html")
	if !errors.Is(err, ErrNoOpener) || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("no opener: %v", err)
	}
}
