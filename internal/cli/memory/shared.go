package memory

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/memory"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/research"
	"github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/store"
)

// deps are what every memory verb needs; each verb's Options embeds it.
type deps struct {
	IO     *iostreams.IOStreams
	Config func() (*config.Config, error)
	Store  func() (*store.Store, error)
	// HTTPClient and Getenv reach a configured embedding provider.
	HTTPClient func() *http.Client
	Getenv     func(string) string
}

func newDeps(f *cmdutil.Factory) deps {
	return deps{IO: f.IO, Config: f.Config, Store: f.Store, HTTPClient: f.HTTPClient, Getenv: f.Getenv}
}

// open loads config and the store and builds the memory service.
func (d deps) open() (*config.Config, *store.Store, *memory.Service, error) {
	cfg, err := d.Config()
	if err != nil {
		return nil, nil, nil, err
	}
	for _, diag := range cfg.Diagnostics {
		fmt.Fprintf(d.IO.ErrOut, "warning: %s\n", diag)
	}
	st, err := d.Store()
	if err != nil {
		return nil, nil, nil, err
	}
	var emb memory.Embedder
	if e, err := research.ForMemory(cfg.Research.Embedding, d.HTTPClient, d.Getenv); err != nil {
		return nil, nil, nil, err
	} else if e != nil {
		emb = e
	}
	return cfg, st, memory.New(st, cfg.Memory, emb), nil
}

// resolveSession turns a --session selector into a session id and label,
// with the same selectors as `asky session`.
func resolveSession(ctx context.Context, st *store.Store, sel string) (int64, string, error) {
	sess, err := session.Resolve(ctx, st, sel)
	if err != nil {
		return 0, "", err
	}
	return sess.ID, sessionLabel(sess.ID, sess.Name), nil
}

func sessionLabel(id int64, name string) string {
	if name == "" {
		return "session " + strconv.FormatInt(id, 10)
	}
	return fmt.Sprintf("session %d (%s)", id, name)
}

// scopeLabel says where a memory applies.
func scopeLabel(m *store.Memory) string {
	label := "global"
	if m.SessionID != 0 {
		label = sessionLabel(m.SessionID, m.SessionName)
	}
	if m.Unconfirmed {
		label += ", unconfirmed"
	}
	return label
}

// memoryJSON is the --json shape of one memory.
type memoryJSON struct {
	ID          int64    `json:"id"`
	Text        string   `json:"text"`
	Tags        []string `json:"tags"`
	Scope       string   `json:"scope"`
	SessionID   *int64   `json:"session_id"`
	SessionName string   `json:"session_name,omitempty"`
	CreatedAt   string   `json:"created_at"`
	UpdatedAt   string   `json:"updated_at"`
	Score       *float64 `json:"score,omitempty"`
	Confirmed   bool     `json:"confirmed"`
	Provenance  string   `json:"provenance,omitempty"`
}

func toJSON(m *store.Memory) memoryJSON {
	j := memoryJSON{ID: m.ID, Text: m.Text, Tags: m.Tags, Scope: "global", Confirmed: !m.Unconfirmed, Provenance: m.Provenance,
		CreatedAt: m.CreatedAt.UTC().Format(time.RFC3339), UpdatedAt: m.UpdatedAt.UTC().Format(time.RFC3339)}
	if j.Tags == nil {
		j.Tags = []string{}
	}
	if m.SessionID != 0 {
		sid := m.SessionID
		j.Scope, j.SessionID, j.SessionName = "session", &sid, m.SessionName
	}
	return j
}

// printMemories prints a table: aligned with the text cut to the width on a
// terminal, tab-separated and complete when piped. scores may be nil.
func printMemories(ios *iostreams.IOStreams, ms []*store.Memory, scores []float64) error {
	tty := ios.IsStdoutTTY()
	header := []string{"ID", "SCOPE", "MEMORY", "TAGS"}
	if scores != nil {
		header = append([]string{header[0], "SCORE"}, header[1:]...)
	}
	rows := make([][]string, 0, len(ms))
	for i, m := range ms {
		row := []string{strconv.FormatInt(m.ID, 10), render.SanitizeLine(scopeLabel(m)), render.SanitizeLine(memory.OneLine(m.Text, 1<<20)),
			render.SanitizeLine(strings.Join(m.Tags, ","))}
		if scores != nil {
			row = append([]string{row[0], fmt.Sprintf("%.2f", scores[i])}, row[1:]...)
		}
		rows = append(rows, row)
	}
	if !tty {
		for _, r := range rows {
			for i := range r {
				r[i] = strings.ReplaceAll(r[i], "\t", " ")
			}
			fmt.Fprintln(ios.Out, strings.Join(r, "\t"))
		}
		return nil
	}
	// Cut the memory column so each row fits the terminal.
	textCol := len(header) - 2
	fixed := 0
	for c := range header {
		if c == textCol {
			continue
		}
		w := len(header[c])
		for _, r := range rows {
			w = max(w, len([]rune(r[c])))
		}
		fixed += w + 2
	}
	room := max(20, ios.TerminalWidth()-fixed)
	tw := tabwriter.NewWriter(ios.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		r[textCol] = memory.OneLine(r[textCol], room)
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

const idsHint = "the ids are the numbers shown by `asky memory list --all`"

// parseIDs accepts ids as separate arguments or comma lists.
func parseIDs(args []string) ([]int64, error) {
	var ids []int64
	seen := map[int64]bool{}
	for _, a := range args {
		for _, p := range strings.Split(a, ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			id, err := strconv.ParseInt(strings.TrimPrefix(p, "#"), 10, 64)
			if err != nil || id <= 0 {
				return nil, &cmdutil.FlagError{Err: fmt.Errorf("%q is not a memory id", p), Hint: idsHint}
			}
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil, &cmdutil.FlagError{Err: errors.New("give at least one memory id"), Hint: idsHint}
	}
	return ids, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// noArgs rejects positional arguments as a usage error (exit 2).
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return &cmdutil.FlagError{Err: fmt.Errorf("%s takes no arguments, got %q", c.CommandPath(), strings.Join(args, " ")), Hint: "see `" + c.CommandPath() + " --help`"}
	}
	return nil
}
