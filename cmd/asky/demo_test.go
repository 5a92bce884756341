package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/llm/llmtest"
)

// TestMakeDemo runs `make demo-run` (the body of `make demo`) with a
// freshly built binary: offline with no model it still exits 0, shows
// ingest, query and sections, and ends on what to do next rather than on
// an error; with a reachable model it also asks it one question.
func TestMakeDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	makeBin, err := exec.LookPath("make")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("make is required in CI")
		}
		t.Skip("make not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "asky")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	demo := func(t *testing.T, config string) string {
		t.Helper()
		home := t.TempDir()
		if config != "" {
			os.MkdirAll(filepath.Join(home, ".config", "asky"), 0o700)
			if err := os.WriteFile(filepath.Join(home, ".config", "asky", "config.toml"), []byte(config), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(makeBin, "-s", "-C", repo, "demo-run", "ASKY="+bin, "DEMO_HOME="+filepath.Join(home, "demo"))
		env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "ASKY_NO_DETECT=1", "PATH=" + os.Getenv("PATH")}
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make demo-run: %v\n%s", err, out)
		}
		return string(out)
	}

	t.Run("offline, no model", func(t *testing.T) {
		out := demo(t, "")
		for _, want := range []string{"== 1/4  asky corpus ingest", "ingested ", "== 2/4  asky corpus query", "relevance ",
			"== 3/4  asky corpus sections README.md", "Quick start", "(skipped: no model configured; steps 1-3 needed no model)", "Next:"} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q in:\n%s", want, out)
			}
		}
		if strings.Contains(out, "✗") || strings.Contains(out, "error:") {
			t.Errorf("the demo must not end on an error:\n%s", out)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if last := lines[len(lines)-1]; !strings.Contains(last, "asky -r ") {
			t.Errorf("last line %q, want a next step", last)
		}
	})

	t.Run("a model is reachable", func(t *testing.T) {
		srv := llmtest.New()
		defer srv.Close()
		srv.Enqueue(llmtest.Response{Text: "asky answers questions from the terminal."})
		out := demo(t, "[general]\ndefault_model = \"fake\"\n[api.fake]\nbase_url = \""+srv.URL()+"\"\n[models.fake]\napi = \"fake\"\nid = \"fake-model\"\n")
		if !strings.Contains(out, "asky answers questions from the terminal.") || strings.Contains(out, "skipped") {
			t.Errorf("want the model's answer:\n%s", out)
		}
		if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(reqs[0].LastUser(), "what does this project do") {
			t.Errorf("requests: %d", len(reqs))
		}
	})
}
