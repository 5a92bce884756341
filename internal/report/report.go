// Package report renders an answer (or a session transcript) as one
// self-contained HTML page and opens it. The page loads nothing: raw HTML
// in the markdown is dropped, images become links, a Content-Security-Policy
// forbids remote fetches and scripts, and code blocks are highlighted at
// render time with chroma, so opening a report never contacts a server a
// model or a fetched page chose.
package report

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	gmext "github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// CSP allows inline styles only: no scripts, no remote images, fonts or
// frames.
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

const css = `body{font:16px/1.6 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}
pre{background:#f6f8fa;padding:.8rem;overflow:auto;border-radius:6px}code{font-family:ui-monospace,monospace}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .6rem}footer{color:#777;font-size:.85rem;margin-top:3rem}
a.img::before{content:"🖼 "}`

// HTML renders md as a standalone page titled title.
func HTML(title, md string, now time.Time) ([]byte, error) {
	gm := goldmark.New(
		goldmark.WithExtensions(gmext.GFM),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(&nodeRenderer{}, 100))),
	)
	var body bytes.Buffer
	if err := gm.Convert([]byte(md), &body); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!doctype html>\n<html><head><meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n<meta name=\"viewport\" content=\"width=device-width\">\n<title>%s</title>\n<style>%s</style></head>\n<body>\n",
		CSP, html.EscapeString(title), css)
	b.Write(body.Bytes())
	fmt.Fprintf(&b, "<footer>asky · %s</footer>\n</body></html>\n", now.Format("2006-01-02 15:04"))
	return b.Bytes(), nil
}

// nodeRenderer highlights fenced code and turns images into links.
type nodeRenderer struct{}

func (r *nodeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, r.code)
	reg.Register(ast.KindImage, r.image)
}

func (r *nodeRenderer) code(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	fc := n.(*ast.FencedCodeBlock)
	var code bytes.Buffer
	for i := 0; i < fc.Lines().Len(); i++ {
		seg := fc.Lines().At(i)
		code.Write(seg.Value(src))
	}
	lang := string(fc.Language(src))
	lexer := lexers.Get(lang)
	if lexer == nil && lang == "" {
		lexer = lexers.Analyse(code.String())
	}
	if lexer == nil {
		lexer = lexers.Fallback
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code.String())
	if err == nil {
		err = chromahtml.New(chromahtml.WithClasses(false), chromahtml.TabWidth(4)).Format(w, styles.Get("github"), it)
	}
	if err != nil {
		_, _ = fmt.Fprintf(w, "<pre><code>%s</code></pre>\n", html.EscapeString(code.String()))
	}
	return ast.WalkSkipChildren, nil
}

// image renders ![alt](url) as a link to the image, never an <img> that
// would load it.
func (r *nodeRenderer) image(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	img := n.(*ast.Image)
	alt := nodeText(img, src)
	if alt == "" {
		alt = "image"
	}
	dest := string(img.Destination)
	if gmhtml.IsDangerousURL(img.Destination) {
		_, _ = fmt.Fprintf(w, "[%s]", html.EscapeString(alt))
		return ast.WalkSkipChildren, nil
	}
	_, _ = fmt.Fprintf(w, `<a class="img" href="%s">%s</a>`, html.EscapeString(dest), html.EscapeString(alt))
	return ast.WalkSkipChildren, nil
}

func nodeText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// Write stores page at path atomically, creating the directory.
func Write(path string, page []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, page, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ErrNoOpener means no program to open the report was found.
var ErrNoOpener = errors.New("no program to open it was found")

// Opener finds how to open a file: $BROWSER, else the platform opener.
type Opener struct {
	Getenv   func(string) string
	LookPath func(string) (string, error)
}

// Command returns the argv that opens path, or ErrNoOpener naming what
// was tried.
func (o Opener) Command(path string) ([]string, error) {
	lookPath := o.LookPath
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	var tried []string
	if o.Getenv != nil {
		for _, b := range strings.Split(o.Getenv("BROWSER"), string(os.PathListSeparator)) {
			if f := strings.Fields(b); len(f) > 0 {
				if _, err := lookPath(f[0]); err == nil {
					return append(append([]string{}, f...), path), nil
				}
				tried = append(tried, f[0])
			}
		}
	}
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name, args = "open", []string{path}
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler", path}
	default:
		name, args = "xdg-open", []string{path}
	}
	if _, err := lookPath(name); err != nil {
		tried = append(tried, name)
		return nil, fmt.Errorf("%w (tried %s)", ErrNoOpener, strings.Join(tried, ", "))
	}
	return append([]string{name}, args...), nil
}

// Open starts the opener for path without waiting for it.
func (o Opener) Open(path string) error {
	argv, err := o.Command(path)
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
