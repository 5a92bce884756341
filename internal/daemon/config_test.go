package daemon

import (
	"slices"
	"strings"
	"testing"
)

func TestParseConfigDefaults(t *testing.T) {
	c, err := ParseConfig(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.Listen != DefaultListen || c.HTTP.TokenEnv != DefaultTokenEnv || !c.HTTP.Loopback() || len(c.Unsupported) != 0 {
		t.Fatalf("%+v", c)
	}
}

func TestParseConfigHTTPAndUnsupported(t *testing.T) {
	c, err := ParseConfig(map[string]any{
		"http":     map[string]any{"listen": "0.0.0.0:9000", "token_cmd": "pass show x", "allowed_hosts": []any{"Asky.LAN"}},
		"telegram": map[string]any{"token_env": "TG"},
	}, map[string]any{"jid": "bot@example.org"})
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.Listen != "0.0.0.0:9000" || c.HTTP.TokenCmd != "pass show x" || c.HTTP.Loopback() {
		t.Fatalf("%+v", c.HTTP)
	}
	if !slices.Equal(c.HTTP.AllowedHosts, []string{"asky.lan"}) {
		t.Fatalf("hosts %v", c.HTTP.AllowedHosts)
	}
	if !slices.Equal(c.Unsupported, []string{"telegram", "xmpp"}) {
		t.Fatalf("unsupported %v", c.Unsupported)
	}
}

func TestParseConfigDisabledTransportsAreQuiet(t *testing.T) {
	c, err := ParseConfig(map[string]any{"telegram": map[string]any{"enabled": false}},
		map[string]any{"enabled": false, "jid": "", "password_env": "ASKY_XMPP_PASSWORD"})
	if err != nil || len(c.Unsupported) != 0 {
		t.Fatalf("%v %v", c.Unsupported, err)
	}
	c, _ = ParseConfig(nil, map[string]any{"enabled": true, "jid": "bot@example.org"})
	if !slices.Equal(c.Unsupported, []string{"xmpp"}) {
		t.Fatalf("%v", c.Unsupported)
	}
}

func TestParseConfigErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		d    map[string]any
		want string
	}{
		"unknown key":   {map[string]any{"http": map[string]any{"port": int64(1)}}, "daemon.http.port"},
		"not a table":   {map[string]any{"http": "x"}, "must be a table"},
		"bad listen":    {map[string]any{"http": map[string]any{"listen": "8765"}}, "not host:port"},
		"bad hosts":     {map[string]any{"http": map[string]any{"allowed_hosts": "x"}}, "list of host names"},
		"unknown table": {map[string]any{"htp": map[string]any{}}, "daemon.htp"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseConfig(tc.d, nil)
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
	c, err := ParseConfig(map[string]any{"http": map[string]any{"allow_no_token": true, "rate": 50.0, "burst": int64(100)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.HTTP.AllowNoToken || c.HTTP.Rate != 50 || c.HTTP.Burst != 100 {
		t.Fatalf("%+v", c.HTTP)
	}
	for _, bad := range []map[string]any{
		{"rate": int64(-1)}, {"rate": 0.0}, {"burst": int64(-5)}, {"burst": 2.5}, {"rate": "fast"}, {"allow_no_token": "yes"},
	} {
		if _, err := ParseConfig(map[string]any{"http": bad}, nil); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
