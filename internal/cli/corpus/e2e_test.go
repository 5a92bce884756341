package corpus_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/askygo/asky/internal/cli"
	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/iostreams"
)

// TestCLIEndToEnd drives the real command tree (cli.Run: legacy flag
// translation, strict groups, error printing and exit codes) through an
// ingest/query/list/sections/eval/remove session, offline and without a
// model.
func TestCLIEndToEnd(t *testing.T) {
	work := t.TempDir()
	files := map[string]string{
		"docs/pager.md":      "# Pager\n\n## Rollback\n\nThe pager rolls back the journal when a transaction fails.\n\n## Locking\n\nShared locks allow many readers at once.\n",
		"docs/notes/wal.txt": "Write-ahead logging appends changes to a separate WAL file.\n",
		"docs/page.html":     "<html><head><title>Checkpoints</title></head><body><h2>Checkpointing</h2><p>A checkpoint copies WAL frames back into the database.</p></body></html>",
		"bad/blob.txt":       "%PDF-1.4 a PDF named .txt",
		"queries.jsonl":      "{\"query\": \"what does a checkpoint copy\", \"gold_any\": [\"copies WAL frames\"]}\n{\"query\": \"write ahead logging\", \"gold_any\": [\"appends changes\"]}\n",
	}
	for name, body := range files {
		p := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(work, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	home := filepath.Join(work, "home")
	steps := []struct {
		args   []string
		code   int
		stdout []string
		stderr []string
		absent []string // must not be on stdout
	}{
		{[]string{"corpus", "ingest", "docs"}, 0, []string{`ingested 3, unchanged 0, failed 0`}, nil, nil},
		{[]string{"corpus", "ingest", "docs"}, 0, []string{`ingested 0, unchanged 3`}, nil, nil},
		{[]string{"corpus", "query", "--json", `how does the pager "roll back?`}, 0, []string{`"source": "corpus://cache/\d+"`, `"section": "Pager > Rollback"`, `"score": `}, nil, nil},
		{[]string{"corpus", "query", "AND OR NEAR( foo:bar -x *"}, 0, nil, nil, nil},
		// A directory scopes the search to the sources below it.
		{[]string{"corpus", "query", "--json", "--source", "docs/notes", "pager journal WAL"}, 0, []string{`wal\.txt`}, nil, []string{`pager\.md`}},
		{[]string{"corpus", "query", "--source", "docs", "pager journal WAL"}, 0, []string{`pager\.md`, `wal\.txt`}, nil, nil},
		{[]string{"corpus", "query", "--source", "docs/nowhere", "pager"}, 1, nil, []string{`no such source`}, nil},
		{[]string{"corpus", "query", "--min-score", "0", "rollbak"}, 0, []string{`rolls back the journal`}, nil, nil},
		{[]string{"corpus", "list"}, 0, []string{`md .*pager\.md`}, nil, nil},
		{[]string{"corpus", "list", "--json"}, 0, []string{`"handle": "corpus://cache/`}, nil, nil},
		{[]string{"corpus", "sections", "pager.md"}, 0, []string{`Rollback  \[rollback-002`}, nil, nil},
		{[]string{"corpus", "ingest", "docs", "bad/blob.txt", "missing.md"}, 1,
			[]string{`failed  .*blob\.txt: binary content with a text extension`, `failed  missing\.md: no such file or directory`},
			[]string{`error: partial success: 2 of 5 files failed`, `hint: `}, nil},
		{[]string{"corpus", "eval", "queries.jsonl"}, 0, []string{`recall@5 1\.000 \(2/2\)`}, nil, nil},
		{[]string{"corpus", "eval", "--source", "docs/notes", "queries.jsonl"}, 0, []string{`recall@5 0\.500 \(1/2\)`}, nil, nil},
		{[]string{"corpus", "remove", "pager.md"}, 0, []string{`removed \d+ .*pager\.md`}, nil, nil},
		{[]string{"corpus", "remove", "pager.md"}, 1, nil, []string{`no such source`}, nil},
		{[]string{"corpus", "frobnicate"}, 2, nil, []string{`"frobnicate" is not a corpus command`}, nil},
		{[]string{"corpus", "query"}, 2, nil, []string{`error: asky corpus query needs <text>`, "hint: usage: asky corpus query <text>"}, nil},
		{[]string{"corpus", "ingest", "empty"}, 1, nil, []string{`no documents found in empty`, `hint: supported: \.txt`}, nil},
	}
	for _, s := range steps {
		ios, _, out, errOut := iostreams.Test()
		f := cmdutil.New(ios)
		f.Getenv = func(k string) string {
			if k == "ASKY_HOME" {
				return home
			}
			return ""
		}
		code := cli.Run(s.args, f)
		if code != s.code {
			t.Fatalf("%v: exit %d, want %d\nstdout: %s\nstderr: %s", s.args, code, s.code, out, errOut)
		}
		for _, re := range s.stdout {
			if !regexp.MustCompile(re).MatchString(out.String()) {
				t.Fatalf("%v: stdout does not match %q:\n%s", s.args, re, out)
			}
		}
		for _, re := range s.absent {
			if regexp.MustCompile(re).MatchString(out.String()) {
				t.Fatalf("%v: stdout matches %q:\n%s", s.args, re, out)
			}
		}
		for _, re := range s.stderr {
			if !regexp.MustCompile(re).MatchString(errOut.String()) {
				t.Fatalf("%v: stderr does not match %q:\n%s", s.args, re, errOut)
			}
		}
	}
}
