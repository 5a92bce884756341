package completion_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askygo/asky/internal/cli"
	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/store"
)

func TestDynamicCompletion(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(`
[models.fast]
id = "gpt-4o-mini"
[models.smart]
id = "claude-sonnet"
`), 0o600)
	getenv := func(k string) string {
		switch k {
		case "ASKY_HOME":
			return home
		case "XDG_RUNTIME_DIR":
			return home
		}
		return ""
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), cfg.Paths.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	st.CreateSession(ctx, &store.Session{Name: "lisbon-trip"})
	st.CreateSession(ctx, &store.Session{Name: "go-generics"})
	st.SaveTurn(ctx, &store.Turn{Query: "what is tcp", Answer: "a protocol"})

	complete := func(args ...string) string {
		ios, _, out, _ := iostreams.Test()
		f := &cmdutil.Factory{IO: ios, Getenv: getenv, Now: time.Now, Getppid: func() int { return 1 }}
		f.Config = sync.OnceValues(func() (*config.Config, error) { return cfg, nil })
		f.Store = func() (*store.Store, error) { return st, nil }
		cli.Run(append([]string{"__complete"}, args...), f)
		return out.String()
	}
	for _, tc := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"-m", ""}, []string{"fast\tgpt-4o-mini", "smart\tclaude-sonnet"}, nil},
		{[]string{"query", "--model", "sm"}, []string{"smart"}, []string{"fast"}},
		{[]string{"session", "use", "lis"}, []string{"lisbon-trip\tsession 1, 0 turns"}, []string{"go-generics"}},
		{[]string{"--resume-session", ""}, []string{"lisbon-trip", "go-generics"}, nil},
		{[]string{"--continue-chat="}, []string{"1\twhat is tcp"}, nil},
		{[]string{"history", "show", ""}, []string{"1\twhat is tcp"}, nil},
	} {
		got := complete(tc.args...)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%v: missing %q in\n%s", tc.args, w, got)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(got, n) {
				t.Errorf("%v: unexpected %q in\n%s", tc.args, n, got)
			}
		}
	}
}

func TestCompletionScriptsGenerate(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		ios, _, out, errOut := iostreams.Test()
		f := &cmdutil.Factory{IO: ios, Getenv: func(string) string { return "" }, Now: time.Now, Getppid: func() int { return 1 }}
		f.Config = func() (*config.Config, error) { t.Fatal("completion scripts must not load config"); return nil, nil }
		f.Store = func() (*store.Store, error) {
			t.Fatal("completion scripts must not open the database")
			return nil, nil
		}
		if code := cli.Run([]string{"completion", sh}, f); code != 0 || out.Len() < 1000 || !strings.Contains(out.String(), "asky") {
			t.Errorf("%s: exit %d, %d bytes, stderr %q", sh, code, out.Len(), errOut)
		}
	}
}
