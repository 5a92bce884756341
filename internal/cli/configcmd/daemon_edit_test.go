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
	// A listen address that cannot be bound is asked again at once.
	e.in.WriteString("localhost:99999\n127.0.0.1:7000\nMY_TOKEN\nasky.lan, other.lan\n")
	if err := e.run("daemon", "edit"); err != nil {
		t.Fatalf("%v\n%s", err, e.errOut)
	}
	wantContains(t, "prompts", e.errOut.String(), `"localhost:99999": the port must be 0-65535; give host:port`)
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
	if err := e.run("daemon", "edit", "--transcription-model", "w", "--confirm-transcripts=false"); err != nil {
		t.Fatalf("%v\n%s", err, e.errOut)
	}
	if got := e.read(t, "config.toml"); !strings.Contains(got, `transcription_model = "w"`) || !strings.Contains(got, "confirm_transcripts = false") {
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

// On a terminal the XMPP and Telegram sections are asked for after the
// HTTP one: secrets by the name of their variable (the secret itself is
// refused and never written), bad answers asked again, the current
// values as defaults.
func TestDaemonEditInteractiveXMPPAndTelegram(t *testing.T) {
	e := newEnv(t, nil, "TG_TOKEN", "set")
	e.f.IO.SetTTY(true, false, true)
	e.in.WriteString(strings.Join([]string{
		"", "", "", // HTTP: the defaults
		"y", "bot@example.org", "hunter2!", "hunter2", "BOT_PW", "", "99999", "5223",
		"me@example.org, phone@example.org/Conversations", "/etc/ssl/my-ca.pem",
		"yes", "123456789:AAFakeTokenFakeTokenFakeToken1234", "TG_TOKEN", "@bob", "42", "-100",
	}, "\n") + "\n")
	if err := e.run("daemon", "edit"); err != nil {
		t.Fatalf("%v\n%s", err, e.errOut)
	}
	got := e.read(t, "config.toml")
	for _, want := range []string{"[xmpp]", "enabled = true", `jid = "bot@example.org"`, `password_env = "BOT_PW"`, "port = 5223",
		`"me@example.org"`, `"phone@example.org/Conversations"`, `ca_file = "/etc/ssl/my-ca.pem"`,
		"[daemon.telegram]", `token_env = "TG_TOKEN"`, "allowed_users = [42]", "allowed_chats = [-100]"} {
		if !strings.Contains(got, want) {
			t.Errorf("config.toml lacks %q:\n%s", want, got)
		}
	}
	for _, secret := range []string{"hunter2", "AAFakeToken"} {
		if strings.Contains(got, secret) {
			t.Errorf("a secret was written:\n%s", got)
		}
	}
	for _, want := range []string{`"hunter2!" is not a variable name`, `"hunter2" is not set in this shell and is not an UPPER_CASE variable name`, "that looks like the token itself", `"99999" is not a port`,
		`"@bob" is not a numeric id`, "note: BOT_PW is not set in this shell", "? Answer over Telegram? (y/N)"} {
		if !strings.Contains(e.errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, e.errOut)
		}
	}
	if strings.Contains(e.errOut.String(), "TG_TOKEN is not set") {
		t.Errorf("warned about a variable that is set:\n%s", e.errOut)
	}

	// Run again: the current values are the defaults; "n" turns XMPP off
	// and keeps its account; a bot that allows nobody is asked again.
	e.in.Reset()
	e.in.WriteString(strings.Join([]string{"", "", "", "n", "", "", "-", "-", "7", "-"}, "\n") + "\n")
	e.errOut.Reset()
	if err := e.run("daemon", "edit"); err != nil {
		t.Fatalf("%v\n%s", err, e.errOut)
	}
	got = e.read(t, "config.toml")
	for _, want := range []string{"? Answer over XMPP? (Y/n)", "? Bot token environment variable [TG_TOKEN]", "(- for none) [42]", "✗ allow at least one user or chat id"} {
		if !strings.Contains(e.errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, e.errOut)
		}
	}
	for _, want := range []string{`jid = "bot@example.org"`, "allowed_users = [7]", "allowed_chats = []"} {
		if !strings.Contains(got, want) {
			t.Errorf("config.toml lacks %q:\n%s", want, got)
		}
	}
	if cfg, err := e.f.Config(); err != nil || cfg.XMPP.Enabled || cfg.XMPP.JID != "bot@example.org" {
		t.Errorf("xmpp not turned off (%v):\n%s", err, got)
	}
}

// A value the daemon would refuse is refused before it is written, and a
// broken value already in the file can be fixed with the flag that sets it.
func TestDaemonEditRefusesBadListenAndFixesOne(t *testing.T) {
	e := newEnv(t, map[string]string{"config.toml": "# mine\n"})
	err := e.run("daemon", "edit", "--listen", "nonsense")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), `daemon.http.listen "nonsense" is not host:port; nothing written`) {
		t.Fatalf("err = %v (exit %d)", err, exitCode(err))
	}
	if got := e.read(t, "config.toml"); strings.Contains(got, "nonsense") {
		t.Fatalf("a refused value was written:\n%s", got)
	}

	e = newEnv(t, map[string]string{"config.toml": "[daemon.http]\nlisten = \"nonsense\"\n"})
	if err := e.run("daemon", "edit", "--listen", "127.0.0.1:9000"); err != nil {
		t.Fatalf("%v\n%s", err, e.errOut)
	}
	if got := e.read(t, "config.toml"); !strings.Contains(got, `listen = "127.0.0.1:9000"`) {
		t.Fatalf("config.toml:\n%s", got)
	}
}
