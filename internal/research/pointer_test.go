package research

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolvePointer(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	write(t, filepath.Join(docs, "a.md"), "# A")
	write(t, filepath.Join(dir, "outside.md"), "# O")
	if err := os.Symlink(filepath.Join(dir, "outside.md"), filepath.Join(docs, "evil.md")); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "HOME" {
			return dir
		}
		return ""
	}
	// The first query word is the pointer when it resolves.
	p, err := ResolvePointer("", []string{"~/docs", "what", "is", "it"}, nil, true, env)
	if err != nil || !p.FromQuery || len(p.Paths) != 1 || p.Paths[0] != docs {
		t.Fatalf("%+v %v", p, err)
	}
	p, err = ResolvePointer("", []string{"what", "is", "it"}, nil, true, env)
	if err != nil || p.FromQuery || len(p.Paths) != 0 {
		t.Fatalf("plain word taken as pointer: %+v %v", p, err)
	}
	p, err = ResolvePointer("web,"+docs, nil, nil, true, env)
	if err != nil || !p.Web || len(p.Paths) != 1 {
		t.Fatalf("%+v %v", p, err)
	}
	if _, err := ResolvePointer(docs+",/no/such", nil, nil, true, env); err == nil || !strings.Contains(err.Error(), "could not be resolved") {
		t.Fatalf("missing path in list: %v", err)
	}
	// A path-like first word that does not resolve is an error, not
	// question text.
	for _, w := range []string{"./nonexistent/", "~/nope", "a,b", "sub/dir"} {
		if _, err := ResolvePointer("", []string{w, "q"}, nil, true, env); err == nil || !strings.Contains(err.Error(), "could not be resolved") {
			t.Fatalf("%s: %v", w, err)
		}
	}
	// A relative name resolves under the roots when it is not a path here.
	p, err = ResolvePointer("", []string{"a.md", "q"}, []string{docs}, true, env)
	if err != nil || !p.FromQuery || p.Paths[0] != filepath.Join(docs, "a.md") {
		t.Fatalf("name under roots: %+v %v", p, err)
	}
	p, err = ResolvePointer("docs", nil, []string{dir}, true, env)
	if err != nil || p.Paths[0] != docs {
		t.Fatalf("dir under roots: %+v %v", p, err)
	}
	// Untrusted (daemon) paths must stay inside the roots.
	if _, err := ResolvePointer("a.md", nil, nil, false, env); err == nil || !strings.Contains(err.Error(), "local_document_roots is empty") {
		t.Fatalf("no roots: %v", err)
	}
	p, err = ResolvePointer("a.md", nil, []string{docs}, false, env)
	if err != nil || p.Paths[0] != filepath.Join(docs, "a.md") {
		t.Fatalf("%+v %v", p, err)
	}
	for _, bad := range []string{filepath.Join(dir, "outside.md"), "../outside.md", "evil.md"} {
		if _, err := ResolvePointer(bad, nil, []string{docs}, false, env); err == nil {
			t.Fatalf("%s escaped the root", bad)
		}
	}
}
