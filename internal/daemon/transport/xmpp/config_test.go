package xmpp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
)

func TestTLSConfigNeverSkipsVerificationSilently(t *testing.T) {
	if _, err := tlsConfig(config.XMPP{TLSInsecureLoopback: true}, "example.org", "example.org"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("insecure on a remote host: %v", err)
	}
	c, err := tlsConfig(config.XMPP{TLSInsecureLoopback: true}, "localhost", "127.0.0.1")
	if err != nil || !c.InsecureSkipVerify {
		t.Fatalf("%+v %v", c, err)
	}
	if c, err = tlsConfig(config.XMPP{}, "example.org", "example.org"); err != nil || c.InsecureSkipVerify || c.ServerName != "example.org" {
		t.Fatalf("%+v %v", c, err)
	}
	bad := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(bad, []byte("not pem"), 0o600)
	if _, err := tlsConfig(config.XMPP{CAFile: bad}, "x", "x"); err == nil || !strings.Contains(err.Error(), "no PEM") {
		t.Fatalf("%v", err)
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	chat := &daemon.Chat{}
	for name, tc := range map[string]struct {
		c    config.XMPP
		pw   string
		want string
	}{
		"no local part": {config.XMPP{JID: "example.org"}, "pw", "user@domain"},
		"no password":   {config.XMPP{JID: "bot@example.org", PasswordEnv: "PW"}, "", "no XMPP password"},
		"bad allowlist": {config.XMPP{JID: "bot@example.org", AllowedJIDs: []string{"@@"}}, "pw", "allowed_jids"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := New(Options{Config: tc.c, Password: tc.pw, Chat: chat}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
