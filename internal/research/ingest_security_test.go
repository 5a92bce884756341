package research

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Attacks on the directory walk: a hostile tree (a cloned repository, an
// unpacked archive) must not make ingest read files outside it.

func collectNames(t *testing.T, args ...string) (map[string]bool, []FileResult) {
	t.Helper()
	in := &Ingester{}
	targets, failed := in.Collect(args)
	got := map[string]bool{}
	for _, tg := range targets {
		got[filepath.Base(tg.Path)] = true
	}
	return got, failed
}

func skippedReason(failed []FileResult, name string) string {
	for _, f := range failed {
		if filepath.Base(f.Path) == name && f.Status == StatusSkipped {
			return f.Reason
		}
	}
	return ""
}

func TestAttackSymlinkedFileExfiltratesSecret(t *testing.T) {
	outside := t.TempDir()
	write(t, filepath.Join(outside, "secret.md"), "AKIA-SECRET-KEY\n")
	repo := t.TempDir()
	write(t, filepath.Join(repo, "docs", "readme.md"), "# Readme\n")
	if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(repo, "docs", "notes.md")); err != nil {
		t.Fatal(err)
	}
	got, failed := collectNames(t, repo)
	if got["notes.md"] {
		t.Fatal("a symlink out of the tree was collected for ingest")
	}
	if !got["readme.md"] {
		t.Fatalf("the regular file was lost: %v", got)
	}
	if r := skippedReason(failed, "notes.md"); !strings.Contains(r, "outside") {
		t.Fatalf("want a skip reason naming the escape, got %+v", failed)
	}
}

func TestAttackRelativeDotDotSymlinkEscapes(t *testing.T) {
	base := t.TempDir()
	write(t, filepath.Join(base, "private", "id_ed25519.txt"), "PRIVATE KEY\n")
	repo := filepath.Join(base, "repo")
	write(t, filepath.Join(repo, "a.md"), "a\n")
	if err := os.Symlink("../private/id_ed25519.txt", filepath.Join(repo, "key.txt")); err != nil {
		t.Fatal(err)
	}
	got, failed := collectNames(t, repo)
	if got["key.txt"] || skippedReason(failed, "key.txt") == "" {
		t.Fatalf("relative ../ link followed: got %v failed %+v", got, failed)
	}
}

func TestAttackSymlinkChainThroughInTreeLink(t *testing.T) {
	// in-tree link -> in-tree link -> outside file: resolved to the end.
	outside := t.TempDir()
	write(t, filepath.Join(outside, "passwd.txt"), "root:x:0:0\n")
	repo := t.TempDir()
	if err := os.Symlink(filepath.Join(outside, "passwd.txt"), filepath.Join(repo, "hop.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("hop.txt", filepath.Join(repo, "entry.md")); err != nil {
		t.Fatal(err)
	}
	got, _ := collectNames(t, repo)
	if got["entry.md"] || got["hop.txt"] {
		t.Fatalf("chained link out of the tree followed: %v", got)
	}
}

func TestAttackSymlinkedDirectoryToEtc(t *testing.T) {
	outside := t.TempDir()
	write(t, filepath.Join(outside, "shadow.txt"), "secret\n")
	repo := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(repo, "etc")); err != nil {
		t.Fatal(err)
	}
	got, _ := collectNames(t, repo)
	if got["shadow.txt"] {
		t.Fatalf("walked into a linked directory outside the tree: %v", got)
	}
}

func TestAttackGlobMatchesSymlinkOut(t *testing.T) {
	outside := t.TempDir()
	write(t, filepath.Join(outside, "token.md"), "token\n")
	repo := t.TempDir()
	write(t, filepath.Join(repo, "ok.md"), "ok\n")
	if err := os.Symlink(filepath.Join(outside, "token.md"), filepath.Join(repo, "leak.md")); err != nil {
		t.Fatal(err)
	}
	got, failed := collectNames(t, filepath.Join(repo, "*.md"))
	if got["leak.md"] || !got["ok.md"] || skippedReason(failed, "leak.md") == "" {
		t.Fatalf("glob followed a link out: got %v failed %+v", got, failed)
	}
}

func TestSymlinkInsideTreeStillFollowed(t *testing.T) {
	repo := t.TempDir()
	write(t, filepath.Join(repo, "real", "guide.md"), "guide\n")
	if err := os.Symlink(filepath.Join("real", "guide.md"), filepath.Join(repo, "alias.md")); err != nil {
		t.Fatal(err)
	}
	got, failed := collectNames(t, repo)
	if !got["guide.md"] || len(failed) != 0 {
		t.Fatalf("in-tree link: got %v failed %+v", got, failed)
	}
}

func TestExplicitlyNamedSymlinkStillTrusted(t *testing.T) {
	outside := t.TempDir()
	write(t, filepath.Join(outside, "mine.md"), "mine\n")
	repo := t.TempDir()
	link := filepath.Join(repo, "mine.md")
	if err := os.Symlink(filepath.Join(outside, "mine.md"), link); err != nil {
		t.Fatal(err)
	}
	got, failed := collectNames(t, link)
	if !got["mine.md"] || len(failed) != 0 {
		t.Fatalf("a file the user named must be read: got %v failed %+v", got, failed)
	}
}
