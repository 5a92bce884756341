package tools

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRemotePolicyDropsLocalTools(t *testing.T) {
	reg := NewRegistry(&Tool{Name: "web_search"}, &Tool{Name: "list_dir", Local: true}, &Tool{Name: "save_memory"})
	removed := Remote{}.Apply(reg)
	if len(removed) != 1 || removed[0] != "list_dir" || reg.Len() != 2 {
		t.Fatalf("removed %v, left %v", removed, reg.Names())
	}
}

// Attacks on the remote path policy: a path outside the document roots,
// a symlink inside a root that leads out, a ../ escape.
func TestRemotePolicyPaths(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "docs")
	outside := filepath.Join(base, "private")
	for _, d := range []string{filepath.Join(root, "papers"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	p := Remote{Roots: []string{root}}
	for path, want := range map[string]bool{
		root:                          true,
		filepath.Join(root, "papers"): true,
		outside:                       false,
		filepath.Join(root, "escape"): false,
		filepath.Join(root, "papers", "..", ".."): false,
		filepath.Join(root, "missing"):            false,
		"/etc/passwd":                             false,
	} {
		if got := p.AllowsPath(path); got != want {
			t.Errorf("AllowsPath(%s) = %v, want %v", path, got, want)
		}
	}
	if (Remote{}).AllowsPath(root) {
		t.Error("no roots configured, yet a path was allowed")
	}
}
