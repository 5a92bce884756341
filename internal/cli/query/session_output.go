package query

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/askygo/asky/internal/cli/session"
	"github.com/askygo/asky/internal/clipboard"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/report"
	"github.com/askygo/asky/internal/turn"
)

// after runs once the answer is printed: -cc copies it, -o/--open write
// (and open) the HTML report, -em extracts memories.
// Failures are warnings; the answer is already out.
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
	if opts.OpenReport || opts.Output != "" {
		sx.report(ctx, res)
	}
	sx.deliverAnswer(ctx, res)
	if sx.afterAnswer != nil {
		sx.afterAnswer(ctx)
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
	page, err := report.HTML(title, md, time.Now())
	if err != nil {
		return "", err
	}
	path := reportPath(sx.opts.Output, sx.cfg.ReportArchiveDir(sx.opts.Factory.Getenv), name, sx.opts.Factory.Getenv("HOME"))
	return path, report.Write(path, page)
}

func reportTitle(words []string) string {
	q := strings.Join(strings.Fields(strings.Join(words, " ")), " ")
	if q == "" {
		return "asky answer"
	}
	return render.Clip(q, 100)
}

// report writes the HTML report and, with --open, opens it. Failures are
// warnings: the answer is already printed.
func (sx *sessionTurn) report(ctx context.Context, res *turn.Result) {
	opts := sx.opts
	path, err := sx.writeReport(ctx, res)
	if err != nil {
		fmt.Fprintf(opts.IO.ErrOut, "warning: could not write the HTML report: %v\n", err)
		return
	}
	fmt.Fprintf(opts.IO.ErrOut, "report: %s\n", path)
	if !opts.OpenReport {
		return
	}
	op := report.Opener{Getenv: opts.Factory.Getenv}
	if err := op.Open(path); err != nil {
		fmt.Fprintf(opts.IO.ErrOut, "warning: could not open the report: %v; open file://%s in a browser\n", err, path)
	}
}

// reportPath is where the report goes: -o's path (a directory, existing
// or ending in /, gets the default file name), else the archive dir.
func reportPath(output, archive, name, home string) string {
	out := strings.TrimSpace(output)
	if out == "" {
		return filepath.Join(archive, name)
	}
	if strings.HasPrefix(out, "~/") && home != "" {
		out = filepath.Join(home, out[2:])
	}
	if strings.HasSuffix(out, "/") || isDir(out) {
		return filepath.Join(out, name)
	}
	return out
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// takeOutputPath gives -o its path when the path came as the next word:
// pflag binds an optional value only with "=", so `asky -o r.html q`
// arrives as -o plus the words "r.html q". A word ending in .html/.htm or
// "/", or naming an existing directory, is the path; anything else is the
// question.
func takeOutputPath(opts *Options) {
	if opts.Output != " " || len(opts.Words) == 0 {
		return
	}
	w := opts.Words[0]
	lw := strings.ToLower(w)
	if strings.HasSuffix(lw, ".html") || strings.HasSuffix(lw, ".htm") || strings.HasSuffix(w, "/") || (strings.ContainsRune(w, '/') && isDir(w)) {
		opts.Output, opts.Words = w, opts.Words[1:]
	}
}
