package configcmd

import (
	"strings"
	"testing"
)

func TestDaemonEditFlags(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": "# my daemon\n[general]\nmax_turns = 5\n"})
	if err := e.run("daemon", "edit", "--listen", "127.0.0.1:9000", "--allowed-host", "asky.lan", "--allowed-host", "box.lan"); err != nil {
		t.Fatalf("%v\n%s", err, e.errOut)
	}
	got := e.read(t, "config.toml")
	for _, want := range []string{"# my daemon", "max_turns = 5", "[daemon.http]", `listen = "127.0.0.1:9000"`, `"asky.lan"`, `"box.lan"`} {
		if !strings.Contains(got, want) {
			t.Errorf("config.toml lacks %q:\n%s", want, got)
		}
	}
	if !strings.Contains(e.errOut.String(), "restart the daemon") {
		t.Errorf("stderr:\n%s", e.errOut)
	}
}

func TestDaemonEditNeedsFlagsWithoutTerminal(t *testing.T) {
	e := newEnv(t, nil)
	err := e.run("daemon", "edit")
	if exitCode(err) != 2 {
		t.Fatalf("err %v (exit %d), want a usage error", err, exitCode(err))
	}
}

func TestDaemonEditInteractive(t *testing.T) {
	e := newEnv(t, nil)
	e.f.IO.SetTTY(true, false, true)
	e.in.WriteString("127.0.0.1:7000\nMY_TOKEN\nasky.lan, other.lan\n")
	if err := e.run("daemon", "edit"); err != nil {
		t.Fatalf("%v\n%s", err, e.errOut)
	}
	got := e.read(t, "config.toml")
	for _, want := range []string{`listen = "127.0.0.1:7000"`, `token_env = "MY_TOKEN"`, `"other.lan"`} {
		if !strings.Contains(got, want) {
			t.Errorf("config.toml lacks %q:\n%s", want, got)
		}
	}
}

func TestDaemonEditTransports(t *testing.T) {
	e := newEnv(t, nil)
	if err := e.run("daemon", "edit", "--http-enabled=false", "--xmpp-enabled", "--xmpp-jid", "bot@example.org",
		"--xmpp-allowed-jid", "me@example.org", "--xmpp-port", "5223", "--telegram-enabled", "--telegram-token-env", "TG",
		"--telegram-allowed-user", "42", "--telegram-allowed-chat", "-100"); err != nil {
		t.Fatalf("%v\n%s", err, e.errOut)
	}
	got := e.read(t, "config.toml")
	for _, want := range []string{"[daemon.http]", "enabled = false", "[xmpp]", `jid = "bot@example.org"`, `"me@example.org"`, "port = 5223",
		"[daemon.telegram]", `token_env = "TG"`, "allowed_users = [42]", "allowed_chats = [-100]"} {
		if !strings.Contains(got, want) {
			t.Errorf("config.toml lacks %q:\n%s", want, got)
		}
	}
}

// The voice/image models are set by alias and checked on the way out.
func TestDaemonEditMediaModels(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": "[api.p]\nbase_url = \"http://127.0.0.1:1/v1\"\n[models.w]\napi = \"p\"\nid = \"whisper-1\"\n[models.v]\napi = \"p\"\nid = \"v\"\n"})
	if err := e.run("daemon", "edit", "--transcription-model", "w"); err != nil {
		t.Fatalf("%v\n%s", err, e.errOut)
	}
	if got := e.read(t, "config.toml"); !strings.Contains(got, `transcription_model = "w"`) {
		t.Fatalf("config.toml:\n%s", got)
	}
	err := e.run("daemon", "edit", "--vision-model", "v")
	if err == nil || !strings.Contains(err.Error(), `daemon.vision_model "v" does not say image_support = true`) {
		t.Fatalf("err = %v", err)
	}
	if got := e.read(t, "config.toml"); strings.Contains(got, "vision_model") {
		t.Fatalf("a refused model was written:\n%s", got)
	}
}
