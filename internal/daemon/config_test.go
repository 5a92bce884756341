package daemon

import (
	"slices"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/config"
)

func TestParseConfigDefaults(t *testing.T) {
	c, err := ParseConfig(nil, config.XMPP{})
	if err != nil {
		t.Fatal(err)
	}
	if !c.HTTP.Enabled || c.HTTP.Listen != DefaultListen || c.HTTP.TokenEnv != DefaultTokenEnv || !c.HTTP.Loopback() {
		t.Fatalf("%+v", c)
	}
	if c.Telegram.Enabled || c.Telegram.APIURL != DefaultTelegramAPI || !slices.Equal(c.Transports(), []string{"http"}) {
		t.Fatalf("%+v %v", c.Telegram, c.Transports())
	}
	if !c.ConfirmTranscripts {
		t.Fatal("transcripts are confirmed by default")
	}
	if c, err = ParseConfig(map[string]any{"confirm_transcripts": false}, config.XMPP{}); err != nil || c.ConfirmTranscripts {
		t.Fatalf("confirm_transcripts = false: %v %v", c.ConfirmTranscripts, err)
	}
	if _, err = ParseConfig(map[string]any{"confirm_transcripts": "no"}, config.XMPP{}); err == nil || !strings.Contains(err.Error(), "true or false") {
		t.Fatalf("bad confirm_transcripts: %v", err)
	}
}

func TestParseConfigTransports(t *testing.T) {
	c, err := ParseConfig(map[string]any{
		"http": map[string]any{"enabled": false, "listen": "0.0.0.0:9000", "token_cmd": "pass show x", "allowed_hosts": []any{"Asky.LAN"}},
		"telegram": map[string]any{"enabled": true, "token_env": "TG", "api_url": "http://127.0.0.1:1/",
			"allowed_users": []any{int64(42)}, "allowed_chats": []any{int64(-100)}},
	}, config.XMPP{Enabled: true, JID: "bot@example.org"})
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.Enabled || c.HTTP.Listen != "0.0.0.0:9000" || c.HTTP.TokenCmd != "pass show x" || c.HTTP.Loopback() {
		t.Fatalf("%+v", c.HTTP)
	}
	if !slices.Equal(c.HTTP.AllowedHosts, []string{"asky.lan"}) {
		t.Fatalf("hosts %v", c.HTTP.AllowedHosts)
	}
	tg := c.Telegram
	if !tg.Enabled || tg.TokenEnv != "TG" || tg.APIURL != "http://127.0.0.1:1" || !slices.Equal(tg.AllowedUsers, []int64{42}) || !slices.Equal(tg.AllowedChats, []int64{-100}) {
		t.Fatalf("%+v", tg)
	}
	if !slices.Equal(c.Transports(), []string{"xmpp", "telegram"}) {
		t.Fatalf("%v", c.Transports())
	}
}

func TestParseConfigErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		d    map[string]any
		want string
	}{
		"unknown key":       {map[string]any{"http": map[string]any{"port": int64(1)}}, "daemon.http.port"},
		"not a table":       {map[string]any{"http": "x"}, "must be a table"},
		"bad listen":        {map[string]any{"http": map[string]any{"listen": "8765"}}, "not host:port"},
		"port out of range": {map[string]any{"http": map[string]any{"listen": "localhost:99999"}}, "the port must be 0-65535"},
		"bad hosts":         {map[string]any{"http": map[string]any{"allowed_hosts": "x"}}, "list of host names"},
		"unknown table":     {map[string]any{"htp": map[string]any{}}, "daemon.htp"},
		"daemon.xmpp":       {map[string]any{"xmpp": map[string]any{}}, "top-level [xmpp]"},
		"tg literal":        {map[string]any{"telegram": map[string]any{"token": "123:abc"}}, "token_env"},
		"tg bad ids":        {map[string]any{"telegram": map[string]any{"allowed_users": []any{"bob"}}}, "numeric ids"},
		"tg bad url":        {map[string]any{"telegram": map[string]any{"api_url": "ftp://x"}}, "not an http(s) URL"},
		"tg no token":       {map[string]any{"telegram": map[string]any{"enabled": true, "token_env": ""}}, "neither token_env"},
		"http enabled":      {map[string]any{"http": map[string]any{"enabled": "yes"}}, "true or false"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseConfig(tc.d, config.XMPP{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestLoopback(t *testing.T) {
	for listen, want := range map[string]bool{
		"127.0.0.1:1": true, "localhost:1": true, "[::1]:1": true, "127.1.2.3:1": true,
		":1": false, "0.0.0.0:1": false, "192.168.1.2:1": false, "[::]:1": false, "example.org:1": false,
	} {
		if got := (HTTPConfig{Listen: listen}).Loopback(); got != want {
			t.Errorf("%s: %v", listen, got)
		}
	}
}

func TestParseConfigTokenOptOutAndRateLimit(t *testing.T) {
	c, err := ParseConfig(map[string]any{"http": map[string]any{"allow_no_token": true, "rate": 50.0, "burst": int64(100)}}, config.XMPP{})
	if err != nil {
		t.Fatal(err)
	}
	if !c.HTTP.AllowNoToken || c.HTTP.Rate != 50 || c.HTTP.Burst != 100 {
		t.Fatalf("%+v", c.HTTP)
	}
	for _, bad := range []map[string]any{
		{"rate": int64(-1)}, {"rate": 0.0}, {"burst": int64(-5)}, {"burst": 2.5}, {"rate": "fast"}, {"allow_no_token": "yes"},
	} {
		if _, err := ParseConfig(map[string]any{"http": bad}, config.XMPP{}); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestParseConfigXMPPNeedsJID(t *testing.T) {
	if _, err := ParseConfig(nil, config.XMPP{Enabled: true}); err == nil || !strings.Contains(err.Error(), "xmpp.jid") {
		t.Fatalf("err = %v", err)
	}
}
