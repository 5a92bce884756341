// Package mdmirror keeps asky's memories as editable markdown: MEMORY.md
// lists the current facts one per line, and append-only daily logs
// (YYYY-MM-DD.md) record each fact added, updated or removed. The
// database stays the index; the markdown can rebuild it (reindex), be
// edited and applied (memory edit), exported and imported.
package mdmirror

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/askygo/asky/internal/store"
)

// Entry is one fact line: `- [scope] text <!-- id:N tags:a,b -->`.
type Entry struct {
	// SessionID is 0 for a global fact.
	SessionID int64
	Text      string
	Tags      []string
	// ID is 0 for a line the user added.
	ID int64
	// Unconfirmed marks a fact saved after reading untrusted content and
	// not yet confirmed (`unconfirmed provenance:…` in the comment): it is
	// never confirmed by an edit, an import or a reindex, only by
	// `asky memory confirm`.
	Unconfirmed bool
	Provenance  string
	// Line is the 1-based line number it was read from.
	Line int
}

// LineError is a malformed line, reported and skipped.
type LineError struct {
	File string
	Line int
	Text string
	Msg  string
}

func (e LineError) Error() string {
	return fmt.Sprintf("%s:%d: %s (skipped: %q)", e.File, e.Line, e.Msg, e.Text)
}

// Scope is the bracketed scope of a line.
func Scope(sessionID int64) string {
	if sessionID == 0 {
		return "global"
	}
	return "session:" + strconv.FormatInt(sessionID, 10)
}

var (
	factLine     = regexp.MustCompile(`^- (?:\[([^\]]*)\]\s*)?(.*?)\s*(?:<!--(.*)-->)?\s*$`)
	sessionScope = regexp.MustCompile(`^session:(\d+)$`)
)

// Parse reads fact lines from r (file names the source in errors).
// Headings, prose and blank lines are ignored; a "- " line that is not a
// fact is a LineError.
func Parse(r io.Reader, file string) ([]Entry, []LineError) {
	var (
		out  []Entry
		errs []LineError
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		if !strings.HasPrefix(line, "- ") && line != "-" {
			continue
		}
		e, msg := parseLine(line)
		if msg != "" {
			errs = append(errs, LineError{File: file, Line: n, Text: raw, Msg: msg})
			continue
		}
		e.Line = n
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, LineError{File: file, Msg: "read: " + err.Error()})
	}
	return out, errs
}

func parseLine(line string) (Entry, string) {
	m := factLine.FindStringSubmatch(line)
	if m == nil {
		return Entry{}, "not a fact line"
	}
	var e Entry
	switch scope := strings.TrimSpace(m[1]); {
	case scope == "" || scope == "global":
	case sessionScope.MatchString(scope):
		e.SessionID, _ = strconv.ParseInt(sessionScope.FindStringSubmatch(scope)[1], 10, 64)
		if e.SessionID <= 0 {
			return e, "bad session id in scope " + strconv.Quote(scope)
		}
	default:
		return e, fmt.Sprintf("unknown scope [%s]; use [global] or [session:ID]", scope)
	}
	e.Text = strings.TrimSpace(m[2])
	if e.Text == "" {
		return e, "empty fact"
	}
	for _, f := range strings.Fields(m[3]) {
		if f == "unconfirmed" {
			e.Unconfirmed = true
			continue
		}
		k, v, ok := strings.Cut(f, ":")
		if !ok {
			return e, fmt.Sprintf("bad field %q in comment (want key:value)", f)
		}
		switch k {
		case "id":
			id, err := strconv.ParseInt(v, 10, 64)
			if err != nil || id <= 0 {
				return e, fmt.Sprintf("bad id %q", v)
			}
			e.ID = id
		case "tags":
			for _, t := range strings.Split(v, ",") {
				if t = strings.TrimSpace(t); t != "" {
					e.Tags = append(e.Tags, t)
				}
			}
		case "provenance":
			p, err := url.PathUnescape(v)
			if err != nil {
				return e, fmt.Sprintf("bad provenance %q", v)
			}
			e.Provenance = p
		case "source", "op", "at":
			// log fields; informational
		default:
			return e, fmt.Sprintf("unknown field %q in comment", k)
		}
	}
	return e, ""
}

// line renders one fact; extra are more comment fields (log lines).
func line(sessionID int64, text string, id int64, tags []string, extra ...string) string {
	text = strings.Join(strings.Fields(text), " ") // one line, always
	fields := []string{"id:" + strconv.FormatInt(id, 10)}
	if len(tags) > 0 {
		t := make([]string, 0, len(tags))
		for _, tag := range tags {
			t = append(t, strings.ReplaceAll(strings.Join(strings.Fields(tag), "-"), ",", "-"))
		}
		fields = append(fields, "tags:"+strings.Join(t, ","))
	}
	fields = append(fields, extra...)
	return fmt.Sprintf("- [%s] %s <!-- %s -->", Scope(sessionID), text, strings.Join(fields, " "))
}

// trustFields mark an unconfirmed memory's line with where it came from;
// the provenance is escaped so that it stays one field and cannot close
// the comment.
func trustFields(unconfirmed bool, provenance string) []string {
	if !unconfirmed {
		return nil
	}
	if provenance == "" {
		return []string{"unconfirmed"}
	}
	return []string{"unconfirmed", "provenance:" + url.PathEscape(provenance)}
}

// Render is MEMORY.md for ms: global facts first, then by session, each
// in id order; unconfirmed facts follow under their own heading, marked
// in their comment, so they never read as plain facts.
func Render(ms []*store.Memory) []byte {
	sorted := slices.Clone(ms)
	slices.SortFunc(sorted, func(a, b *store.Memory) int {
		if a.SessionID != b.SessionID {
			return int(a.SessionID - b.SessionID)
		}
		return int(a.ID - b.ID)
	})
	var b strings.Builder
	b.WriteString("# Memory\n\n")
	b.WriteString("What asky remembers, one fact per line: `- [global|session:ID] fact`.\n")
	b.WriteString("Edit with `asky memory edit`: a line without an id is a new fact, a deleted line is forgotten.\n\n")
	var held []*store.Memory
	for _, m := range sorted {
		if m.Unconfirmed {
			held = append(held, m)
			continue
		}
		b.WriteString(line(m.SessionID, m.Text, m.ID, m.Tags))
		b.WriteByte('\n')
	}
	if len(held) > 0 {
		b.WriteString("\n## Unconfirmed\n\n")
		b.WriteString("Saved after reading untrusted content; not used until you run `asky memory confirm ID`.\n")
		b.WriteString("Editing or removing the `unconfirmed` mark does not confirm them.\n\n")
		for _, m := range held {
			b.WriteString(line(m.SessionID, m.Text, m.ID, m.Tags, trustFields(true, m.Provenance)...))
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}
