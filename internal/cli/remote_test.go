package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRemoteCommandsPolicy(t *testing.T) {
	f, _, _, _ := testFactory(t, nil)
	home := f.Getenv("ASKY_HOME")
	cfg := "[command_presets]\nnews = \"-L latest news about $*\"\nplain = \"tell me about $1\"\nhist = \"history delete --all\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := remoteCommands{f: f}
	ctx := context.Background()
	for _, text := range []string{
		"history delete 1", "session delete 2", "memory clear", "corpus ingest /etc", "config set general.max_turns 1",
		"--sendmail me@x.org hi", "-tl 10 why", "--open", "--daemon", "daemon stop", "history list --sendmail",
		`\hist`, "--config model add", "-o report", "corpus query x --source /etc/passwd",
	} {
		if _, err := r.Command(ctx, "xmpp:a@b", text); !errors.Is(err, ErrRemotePolicy) {
			t.Errorf("%q: err = %v, want the remote policy refusal", text, err)
		}
	}
	res, err := r.Command(ctx, "xmpp:a@b", "history list --json")
	if err != nil || !res.Handled || !strings.Contains(res.Reply, "[]") && !strings.Contains(res.Reply, "{") {
		t.Fatalf("history list: %+v %v", res, err)
	}
	if res, err := r.Command(ctx, "xmpp:a@b", "/ASKY history list --json"); err != nil || !res.Handled {
		t.Fatalf("/ASKY: %+v %v", res, err)
	}
	res, err = r.Command(ctx, "xmpp:a@b", "-m fast -L what is up")
	if err != nil || res.Handled || res.Question != "what is up" || res.Model != "fast" || !res.Lean {
		t.Fatalf("query flags: %+v %v", res, err)
	}
	res, err = r.Command(ctx, "xmpp:a@b", `\news go 1.26`)
	if err != nil || res.Question != "latest news about go 1.26" || !res.Lean {
		t.Fatalf("preset: %+v %v", res, err)
	}
	res, err = r.Command(ctx, "xmpp:a@b", `\plain rust`)
	if err != nil || res.Question != "tell me about rust" || res.Lean {
		t.Fatalf("plain preset: %+v %v", res, err)
	}
	if res, err = r.Command(ctx, "xmpp:a@b", "/help"); err != nil || !strings.Contains(res.Reply, "/session") {
		t.Fatalf("help: %+v %v", res, err)
	}
	if res, err = r.Command(ctx, "xmpp:a@b", "/session"); err != nil || !strings.Contains(res.Reply, "(xmpp:a@b)") || !strings.Contains(res.Reply, "/session new") {
		t.Fatalf("/session: %+v %v", res, err)
	}
}
