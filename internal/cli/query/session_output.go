package query

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/yuin/goldmark"
	gmext "github.com/yuin/goldmark/extension"

	"github.com/askygo/asky/internal/cli/session"
	"github.com/askygo/asky/internal/clipboard"
	"github.com/askygo/asky/internal/turn"
)

// after runs once the answer is printed: -cc copies it, -o writes the HTML
// report. Failures are warnings; the answer is already out.
func (sx *sessionTurn) after(ctx context.Context, res *turn.Result) error {
	if res == nil {
		return nil
	}
	opts := sx.opts
	if opts.CopyClipboard {
		var term *os.File
		if opts.IO.IsStderrTTY() {
			term = os.Stderr
		}
		env := clipboard.Env{Getenv: opts.Factory.Getenv}
		if term != nil {
			env.Terminal = term
		}
		if how, err := clipboard.Copy(ctx, env, res.Answer); err != nil {
			fmt.Fprintf(opts.IO.ErrOut, "warning: could not copy the answer to the clipboard: %v\n", err)
		} else if opts.Factory.Verbosity > 0 {
			fmt.Fprintf(opts.IO.ErrOut, "copied the answer to the clipboard (%s)\n", how)
		}
	}
	if opts.OpenReport {
		path, err := sx.writeReport(ctx, res)
		if err != nil {
			fmt.Fprintf(opts.IO.ErrOut, "warning: could not write the HTML report: %v\n", err)
			return nil
		}
		fmt.Fprintf(opts.IO.ErrOut, "report: %s\n", path)
		if opts.IO.IsStdoutTTY() {
			openInBrowser(path)
		}
	}
	return nil
}

// writeReport renders the answer (or the whole session) as one
// self-contained HTML file in the cache dir. Raw HTML in the markdown is
// not passed through, so a model cannot inject script into the page.
func (sx *sessionTurn) writeReport(ctx context.Context, res *turn.Result) (string, error) {
	title := reportTitle(sx.opts.Words)
	md := "# " + title + "\n\n" + res.Answer
	name := fmt.Sprintf("asky-%d.html", res.HistoryID)
	if sx.sess != nil && sx.st != nil {
		s, err := sx.st.GetSession(ctx, sx.sess.ID)
		if err == nil {
			turns, err := sx.st.SessionTurns(ctx, s.ID, 0)
			if err == nil {
				md = session.Transcript(s, turns)
				title = "Session " + s.Name
				name = fmt.Sprintf("asky-session-%d.html", s.ID)
			}
		}
	}
	if len(res.Sources) > 0 {
		md += "\n\n## Sources\n\n"
		for _, src := range res.Sources {
			label := src.Title
			if label == "" {
				label = src.URL
			}
			md += fmt.Sprintf("- [%s](%s)\n", strings.ReplaceAll(label, "]", ""), src.URL)
		}
	}
	page, err := reportHTML(title, md, time.Now())
	if err != nil {
		return "", err
	}
	dir := filepath.Join(sx.cfg.Paths.CacheDir, "reports")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, page, 0o600); err != nil {
		return "", err
	}
	return path, os.Rename(tmp, path)
}

func reportTitle(words []string) string {
	q := strings.Join(strings.Fields(strings.Join(words, " ")), " ")
	if q == "" {
		return "asky answer"
	}
	return oneLine(q, 100)
}

const reportCSS = `body{font:16px/1.6 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}
pre{background:#f5f5f5;padding:.8rem;overflow:auto;border-radius:6px}code{font-family:ui-monospace,monospace}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .6rem}footer{color:#777;font-size:.85rem;margin-top:3rem}
@media (prefers-color-scheme:dark){body{background:#161616;color:#ddd}pre{background:#262626}a{color:#8cf}}`

// reportHTML renders markdown to a standalone page.
func reportHTML(title, md string, now time.Time) ([]byte, error) {
	var body bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(gmext.GFM))
	if err := gm.Convert([]byte(md), &body); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\n<title>%s</title>\n<style>%s</style></head>\n<body>\n", html.EscapeString(title), reportCSS)
	b.Write(body.Bytes())
	fmt.Fprintf(&b, "<footer>asky · %s</footer>\n</body></html>\n", now.Format("2006-01-02 15:04"))
	return b.Bytes(), nil
}

// openInBrowser starts the platform opener without waiting for it.
func openInBrowser(path string) {
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
	if _, err := exec.LookPath(name); err != nil {
		return
	}
	cmd := exec.Command(name, args...)
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}
