package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Attacks on the SSRF guard, above all with [fetch] proxy set, where the
// dial-time check only ever sees the proxy: a getaddrinfo-based proxy
// turns every inet_aton spelling of 127.0.0.1 into loopback.

// loopbackSpellings all mean 127.0.0.1 (or 0.0.0.0) to inet_aton.
var loopbackSpellings = []string{
	"127.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.000.000.001", "0", "0x7f.1",
	"127.0.1", "017700000001", "0x7F.0.0.1", "127.1.", "0.0.0.0", "[::ffff:127.0.0.1]", "[::1]",
	"localhost.", "LOCALHOST", "app.localhost",
}

// recordingProxy is a forward proxy that answers every request itself and
// records what it was asked for; it stands in for squid or tinyproxy.
type recordingProxy struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string
}

func newRecordingProxy(t *testing.T, h http.HandlerFunc) *recordingProxy {
	t.Helper()
	p := &recordingProxy{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.seen = append(p.seen, r.URL.String())
		p.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("proxied " + r.URL.String()))
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *recordingProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// fakeDNS answers from a table; other names are NXDOMAIN.
func fakeDNS(table map[string]string) resolver {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		if a, ok := table[host]; ok {
			return []netip.Addr{netip.MustParseAddr(a)}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
}

func proxiedClient(t *testing.T, p *recordingProxy, dns map[string]string) *Client {
	t.Helper()
	c := testClient(t, func(o *Options) { o.Proxy = p.srv.URL })
	c.lookup = fakeDNS(dns)
	return c
}

func TestAttackProxyLoopbackSpellings(t *testing.T) {
	p := newRecordingProxy(t, nil)
	c := proxiedClient(t, p, nil)
	for _, h := range loopbackSpellings {
		_, err := c.Get(context.Background(), "http://"+h+":8080/admin")
		if err == nil || !strings.Contains(err.Error(), "blocked") {
			t.Errorf("%s: %v, want blocked", h, err)
		}
	}
	if got := p.requests(); len(got) != 0 {
		t.Fatalf("the proxy was asked for internal targets: %v", got)
	}
}

func TestAttackProxyRedirectToShortLoopback(t *testing.T) {
	p := newRecordingProxy(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Host == "public.example" {
			http.Redirect(w, r, "http://127.1:6379/", http.StatusFound)
			return
		}
		_, _ = w.Write([]byte("internal!"))
	})
	c := proxiedClient(t, p, map[string]string{"public.example": "93.184.216.34"})
	_, err := c.Get(context.Background(), "http://public.example/")
	var be *BlockedError
	if !errors.As(err, &be) || be.Reason != "loopback" {
		t.Fatalf("redirect to 127.1 through the proxy: %v, want blocked (loopback)", err)
	}
	if got := p.requests(); len(got) != 1 {
		t.Fatalf("proxy requests %v, want only the public one", got)
	}
}

func TestAttackProxyNameResolvingToMetadata(t *testing.T) {
	p := newRecordingProxy(t, nil)
	c := proxiedClient(t, p, map[string]string{"rebind.example": "169.254.169.254", "lan.example": "10.0.0.7"})
	for _, h := range []string{"rebind.example", "lan.example", "REBIND.example."} {
		if _, err := c.Get(context.Background(), "http://"+h+"/"); err == nil || !strings.Contains(err.Error(), "blocked") {
			t.Errorf("%s: %v, want blocked", h, err)
		}
	}
	if got := p.requests(); len(got) != 0 {
		t.Fatalf("the proxy was asked for internal names: %v", got)
	}
}

func TestProxyStillFetchesPublicAndUnresolvableNames(t *testing.T) {
	p := newRecordingProxy(t, nil)
	c := proxiedClient(t, p, map[string]string{"public.example": "93.184.216.34"})
	for _, u := range []string{"http://public.example/a", "http://only-the-proxy-knows.example/b"} {
		if _, err := c.Get(context.Background(), u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	if got := p.requests(); len(got) != 2 {
		t.Fatalf("proxy requests %v", got)
	}
}

func TestAttackDirectLoopbackSpellings(t *testing.T) {
	site := newFakeSite(t)
	c := testClient(t)
	addr := site.internal.Listener.Addr().String()
	port := addr[strings.LastIndex(addr, ":"):]
	for _, h := range loopbackSpellings {
		_, err := c.Get(context.Background(), "http://"+h+port+"/")
		if err == nil || !strings.Contains(err.Error(), "blocked") {
			t.Errorf("%s: %v, want blocked before any lookup", h, err)
		}
	}
	if site.hits["internal"] != 0 {
		t.Fatalf("internal server reached %d times", site.hits["internal"])
	}
}

func TestAttackDirectRedirectToShortLoopback(t *testing.T) {
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("internal server reached")
	}))
	defer internal.Close()
	port := internal.Listener.Addr().(*net.TCPAddr).Port
	ln, err := net.Listen("tcp", publicIP+":0")
	if err != nil {
		t.Fatal(err)
	}
	pub := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.1:"+strconv.Itoa(port)+"/", http.StatusFound)
	})}}
	pub.Start()
	defer pub.Close()
	var be *BlockedError
	if _, err := testClient(t).Get(context.Background(), pub.URL+"/"); !errors.As(err, &be) || be.Reason != "loopback" {
		t.Fatalf("redirect to 127.1: %v, want blocked (loopback)", err)
	}
}

func TestParseHostAddrMatchesInetAton(t *testing.T) {
	for in, want := range map[string]string{
		"127.1": "127.0.0.1", "2130706433": "127.0.0.1", "0x7f000001": "127.0.0.1", "0177.0.0.1": "127.0.0.1",
		"127.000.000.001": "127.0.0.1", "0": "0.0.0.0", "10.1": "10.0.0.1", "192.168.257": "192.168.1.1",
		"0x7f.1": "127.0.0.1", "127.1.": "127.0.0.1", "[::ffff:10.0.0.1]": "10.0.0.1", "8.8.8.8": "8.8.8.8",
		"0xA9FEA9FE": "169.254.169.254", "025177524776": "169.254.169.254",
	} {
		got, ok := ParseHostAddr(in)
		if !ok || got.String() != want {
			t.Errorf("ParseHostAddr(%q) = %v %v, want %s", in, got, ok, want)
		}
	}
	for _, name := range []string{"example.com", "127.0.0.1.example", "1.2.3.4.5", "256.1.1.1", "08", "1e3", "-1", "+1", "4294967296", "", "1..1"} {
		if got, ok := ParseHostAddr(name); ok {
			t.Errorf("ParseHostAddr(%q) = %v, want a name", name, got)
		}
	}
}
