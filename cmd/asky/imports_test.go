package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/askygo/asky/"

// layer places a package (and everything under its path) in the import
// order DESIGN.md fixes: a package imports only packages of a higher rank
// (further down the list), or of its own rank when peers is set. config
// and the other leaves sit at the bottom because everything may read
// them; daemon and jobs are front ends beside cli (they drive the turn
// engine), although DESIGN lists the daemon package last.
type layer struct {
	rank     int
	peers    bool // may import other packages of the same rank
	prefixes []string
}

var layers = []layer{
	{0, false, []string{"cmd/asky"}},
	{1, true, []string{"internal/cli"}},
	{2, true, []string{"internal/daemon", "internal/jobs"}},
	{3, true, []string{"internal/turn"}},
	{4, true, []string{"internal/tools"}},
	{5, true, []string{"internal/fetch", "internal/search", "internal/research", "internal/shortlist", "internal/memory",
		"internal/summarize", "internal/session", "internal/usage", "internal/deliver", "internal/report",
		"internal/userprompt", "internal/termlines", "internal/clipboard"}},
	{6, false, []string{"internal/llm"}},
	{7, false, []string{"internal/store"}},
	{8, false, []string{"internal/config", "internal/iostreams", "internal/render", "internal/tui", "prompts",
		"internal/procid", "internal/filelock", "internal/build", "internal/termbg"}},
}

// terminalOnly are the terminal-facing packages: only the front ends
// (rank 2 and above) import them, so the turn engine and what it uses
// stay the same for the CLI and every daemon transport.
var terminalOnly = map[string]bool{"internal/iostreams": true, "internal/render": true, "internal/tui": true,
	"internal/termbg": true, "internal/termlines": true, "internal/clipboard": true}

// placeOf returns the layer and the matching prefix of a module-relative
// package path, or ok=false for a package DESIGN does not place yet.
func placeOf(pkg string) (l layer, prefix string, ok bool) {
	for _, cand := range layers {
		for _, p := range cand.prefixes {
			if (pkg == p || strings.HasPrefix(pkg, p+"/")) && len(p) > len(prefix) {
				l, prefix, ok = cand, p, true
			}
		}
	}
	return l, prefix, ok
}

// edgeAllowed reports whether package from may import package to (both
// module-relative), and why not.
func edgeAllowed(from, to string) (bool, string) {
	fl, fp, ok := placeOf(from)
	if !ok {
		return false, from + " is not placed in the DESIGN.md package order (add it to layers in cmd/asky/imports_test.go)"
	}
	tl, tp, ok := placeOf(to)
	if !ok {
		return false, to + " is not placed in the DESIGN.md package order (add it to layers in cmd/asky/imports_test.go)"
	}
	if terminalOnly[tp] && fl.rank > 2 {
		return false, from + " imports " + to + ": terminal I/O belongs to the front ends (cli, daemon, jobs); the engine below them returns data"
	}
	switch {
	case fp == tp, tl.rank > fl.rank, tl.rank == fl.rank && fl.peers:
		return true, ""
	}
	return false, from + " imports " + to + " against the DESIGN.md import direction"
}

// owners are the only packages (path prefixes) that may import each
// outside package DESIGN gives one job: internal/store is the only owner
// of SQL, cobra stays in cli, and so on.
var owners = map[string][]string{
	"database/sql":                        {"internal/store"},
	"modernc.org/sqlite":                  {"internal/store"},
	"modernc.org/sqlite/lib":              {"internal/store"},
	"github.com/spf13/cobra":              {"internal/cli"},
	"github.com/charmbracelet/glamour":    {"internal/render"},
	"github.com/charmbracelet/bubbletea":  {"internal/tui", "internal/cli"},
	"github.com/philippgille/chromem-go":  {"internal/research"},
	"github.com/go-shiori/go-readability": {"internal/fetch"},
}

// owned reports whether pkg may import the outside package imp.
func owned(pkg, imp string) bool {
	allowed, ok := owners[imp]
	if !ok {
		return true
	}
	for _, p := range allowed {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}

// TestImportDirection parses the imports of every non-test Go file of the
// module and fails on an edge against DESIGN.md's package order, on a
// package that imports cli, and on an outside package used beyond its
// owner (SQL outside internal/store, cobra outside cli, …).
func TestImportDirection(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	edges := map[string]map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || name == "bin" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if edges[pkg] == nil {
				edges[pkg] = map[string]bool{}
			}
			edges[pkg][p] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(edges) < 20 {
		t.Fatalf("found only %d packages under %s; is the walk broken?", len(edges), root)
	}
	var bad []string
	for from, tos := range edges {
		for to := range tos {
			if !owned(from, to) {
				bad = append(bad, from+" imports "+to+": only "+strings.Join(owners[to], ", ")+" may (DESIGN.md)")
			}
			rel, ok := strings.CutPrefix(to, module)
			if !ok {
				continue
			}
			if allowed, why := edgeAllowed(from, rel); !allowed {
				bad = append(bad, why)
			}
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// TestEdgeAllowed pins the rules themselves, so a table edit that lets a
// wrong edge through fails here.
func TestEdgeAllowed(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"cmd/asky", "internal/cli", true},
		{"internal/cli/query", "internal/cli/history", true},
		{"internal/cli/daemon", "internal/daemon/transport/http", true},
		{"internal/daemon", "internal/turn", true},
		{"internal/turn/compose", "internal/turn", true},
		{"internal/tools", "internal/fetch", true},
		{"internal/shortlist", "internal/fetch", true},
		{"internal/llm/provider", "internal/config", true},
		{"internal/llm/openai", "internal/llm/wire", true},
		{"internal/store", "internal/procid", true},
		{"internal/daemon", "internal/cli", false},
		{"internal/turn", "internal/cli/cmdutil", false},
		{"internal/turn", "internal/daemon", false},
		{"internal/turn", "internal/iostreams", false},
		{"internal/tools", "internal/render", false},
		{"internal/cli/history", "internal/tui", true},
		{"internal/tools", "internal/turn", false},
		{"internal/fetch", "internal/tools", false},
		{"internal/store", "internal/llm", false},
		{"internal/llm", "internal/fetch", false},
		{"internal/config", "internal/store", false},
		{"internal/config", "internal/render", false},
		{"internal/tui", "internal/store", false},
		{"internal/render", "internal/iostreams", false},
		{"internal/newthing", "internal/config", false},
	} {
		if got, why := edgeAllowed(c.from, c.to); got != c.ok {
			t.Errorf("edgeAllowed(%s, %s) = %v (%s), want %v", c.from, c.to, got, why, c.ok)
		}
	}
	for _, c := range []struct {
		pkg, imp string
		ok       bool
	}{
		{"internal/store", "database/sql", true},
		{"internal/memory", "database/sql", false},
		{"internal/cli/history", "github.com/charmbracelet/bubbletea", true},
		{"internal/daemon", "github.com/spf13/cobra", false},
		{"internal/research", "github.com/go-shiori/go-readability", false},
		{"internal/turn", "net/http", true},
	} {
		if got := owned(c.pkg, c.imp); got != c.ok {
			t.Errorf("owned(%s, %s) = %v, want %v", c.pkg, c.imp, got, c.ok)
		}
	}
}
