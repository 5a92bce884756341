package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCompletionFilesAreCurrent fails when the committed completions/ are
// stale: regenerate them with `make completions`.
func TestCompletionFilesAreCurrent(t *testing.T) {
	files := map[string]string{"bash": "asky.bash", "zsh": "_asky", "fish": "asky.fish", "powershell": "asky.ps1"}
	for shell, name := range files {
		f, _, out, errOut := testFactory(t, nil)
		if code := Run([]string{"completion", shell}, f); code != 0 {
			t.Fatalf("completion %s: exit %d\n%s", shell, code, errOut)
		}
		want, err := os.ReadFile(filepath.Join("..", "..", "completions", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("completions/%s is stale; run `make completions`", name)
		}
	}
}
