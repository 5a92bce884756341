package fetch

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestGuardAddressClasses(t *testing.T) {
	g := NewGuard(false)
	denied := []string{
		"127.0.0.1", "127.1.2.3", "0.0.0.0", "10.0.0.1", "172.16.5.4", "192.168.1.1",
		"169.254.169.254", "169.254.1.1", "100.64.0.1", "100.127.255.255", "224.0.0.1", "255.255.255.255",
		"198.18.0.1", "192.0.2.1",
		"::1", "::", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
		"64:ff9b::a9fe:a9fe", "64:ff9b::7f00:1", "fd00::1", "fc00::1", "fe80::1", "fe80::1%eth0", "ff02::1",
		"2001:db8::1", "2002:7f00:1::", "fd00:ec2::254",
	}
	for _, s := range denied {
		ip := netip.MustParseAddr(s)
		if err := g.Check(ip); err == nil {
			t.Errorf("%s: allowed, want blocked", s)
		} else if !strings.Contains(err.Error(), "blocked") {
			t.Errorf("%s: error %q does not say blocked", s, err)
		}
	}
	allowed := []string{"8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8"}
	for _, s := range allowed {
		if err := g.Check(netip.MustParseAddr(s)); err != nil {
			t.Errorf("%s: blocked (%v), want allowed", s, err)
		}
	}
}

func TestGuardAllowPrivateKeepsMetadataBlocked(t *testing.T) {
	g := NewGuard(true)
	for _, s := range []string{"10.0.0.1", "192.168.0.10", "127.0.0.1", "fd12::1", "100.64.1.1"} {
		if err := g.Check(netip.MustParseAddr(s)); err != nil {
			t.Errorf("%s blocked with allow_private_networks: %v", s, err)
		}
	}
	for _, s := range []string{"169.254.169.254", "fd00:ec2::254", "224.0.0.1", "0.0.0.0"} {
		if err := g.Check(netip.MustParseAddr(s)); err == nil {
			t.Errorf("%s allowed with allow_private_networks, want blocked", s)
		}
	}
}

func TestGuardAllowPrefixOnlyThatAddress(t *testing.T) {
	g := NewGuard(false, netip.MustParsePrefix("127.0.0.2/32"))
	if err := g.Check(netip.MustParseAddr("127.0.0.2")); err != nil {
		t.Fatalf("127.0.0.2: %v", err)
	}
	if err := g.Check(netip.MustParseAddr("127.0.0.1")); err == nil {
		t.Fatal("127.0.0.1 allowed")
	}
}

func TestGuardControl(t *testing.T) {
	g := NewGuard(false)
	cases := map[string]bool{ // address -> want error
		"127.0.0.1:80": true, "[::1]:443": true, "8.8.8.8:443": false, "[::ffff:7f00:1]:80": true, "nonsense": true,
	}
	for addr, wantErr := range cases {
		if err := g.Control("tcp", addr, nil); (err != nil) != wantErr {
			t.Errorf("Control(%q) = %v, want error %v", addr, err, wantErr)
		}
	}
	if err := g.Control("udp", "8.8.8.8:53", nil); err == nil {
		t.Error("udp allowed")
	}
}

func TestParseAllowHosts(t *testing.T) {
	p, n, err := parseAllowHosts([]string{"127.0.0.2", "10.1.0.0/16", "Intranet.Example", "*.corp.example", " "})
	if err != nil {
		t.Fatal(err)
	}
	if len(p) != 2 || len(n) != 2 {
		t.Fatalf("prefixes %v names %v", p, n)
	}
	if !hostAllowed("intranet.example", n) || !hostAllowed("a.b.corp.example", n) || hostAllowed("evilcorp.example", n) {
		t.Errorf("host matching wrong: %v", n)
	}
	if _, _, err := parseAllowHosts([]string{"http://x/"}); err == nil {
		t.Error("URL accepted as allow_hosts entry")
	}
}

// Every loopback spelling and every redirect into loopback is blocked, and
// the internal server never sees a request.
func TestGuardedClientBlocksInternalTargets(t *testing.T) {
	site := newFakeSite(t)
	c := testClient(t)
	ctx := context.Background()
	port := site.internal.Listener.Addr().String()[strings.LastIndex(site.internal.Listener.Addr().String(), ":"):]
	targets := []string{
		site.internalURL(),
		"http://localhost" + port + "/",
		"http://[::1]" + port + "/",
		"http://[::ffff:127.0.0.1]" + port + "/",
		"http://0.0.0.0" + port + "/",
		"http://127.1" + port + "/",
		site.url("/to-loopback"),
		site.url("/to-localhost"),
	}
	for _, u := range targets {
		_, err := c.Get(ctx, u)
		if err == nil {
			t.Errorf("%s: fetched, want blocked", u)
			continue
		}
		t.Logf("%s: %v", u, err)
	}
	if site.hits["internal"] != 0 {
		t.Fatalf("internal server was reached %d times", site.hits["internal"])
	}
	var be *BlockedError
	if _, err := c.Get(ctx, site.url("/to-loopback")); !errors.As(err, &be) || be.Reason != "loopback" {
		t.Errorf("redirect into loopback: %v, want BlockedError(loopback)", err)
	}
}

func TestGuardedClientRejectsSchemesAndUserinfo(t *testing.T) {
	site := newFakeSite(t)
	c := testClient(t)
	for _, u := range []string{"file:///etc/passwd", "gopher://x/", "ftp://example.com/", "data:text/plain,hi",
		"javascript:alert(1)", "http://user:pw@" + strings.TrimPrefix(site.url("/article"), "http://"), "/etc/passwd", "local://x", "~/notes.txt"} {
		if _, err := c.Get(context.Background(), u); err == nil {
			t.Errorf("%s: accepted", u)
		}
	}
	if _, err := c.Get(context.Background(), site.url("/to-file")); err == nil {
		t.Error("redirect to file: followed")
	}
}

// With a proxy the dial-time check sees the proxy, so literal internal
// addresses and localhost names are refused by name before the request.
func TestProxyModeChecksTargetsByName(t *testing.T) {
	c := testClient(t, func(o *Options) { o.Proxy = "http://127.0.0.1:1" })
	for _, u := range []string{"http://127.0.0.1/", "http://localhost/", "http://app.localhost/", "http://[::1]/", "http://169.254.169.254/latest/meta-data"} {
		_, err := c.Get(context.Background(), u)
		if err == nil || !strings.Contains(err.Error(), "blocked") {
			t.Errorf("%s: %v, want blocked", u, err)
		}
	}
}

func TestBlockedErrorReadsWell(t *testing.T) {
	e := &BlockedError{Addr: netip.MustParseAddr("0.0.0.0"), Reason: "unspecified"}
	if !strings.HasPrefix(e.Error(), "blocked: 0.0.0.0 is an unspecified address") {
		t.Errorf("%q", e.Error())
	}
	e = &BlockedError{Addr: netip.MustParseAddr("127.0.0.1"), Reason: "loopback"}
	if !strings.HasPrefix(e.Error(), "blocked: 127.0.0.1 is a loopback address") {
		t.Errorf("%q", e.Error())
	}
}
