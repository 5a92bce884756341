package fetch

import (
	"context"
	"net"
	"net/netip"
	"testing"
)

// FuzzSSRFGuard checks the dial-time guard against an independent oracle:
// whatever the standard library classifies as loopback, private,
// link-local, multicast or unspecified (after unmapping IPv4-in-IPv6) must
// be refused by the default guard, and Control never panics. The same
// input, read as a URL host (inet_aton spellings such as 127.1 or
// 0x7f000001 included), must be refused by the URL-level check whenever
// it denotes such an address: that is the only check a proxy leaves.
func FuzzSSRFGuard(f *testing.F) {
	for _, s := range []string{
		"127.0.0.1:80", "[::1]:443", "[::ffff:127.0.0.1]:80", "[::ffff:10.0.0.1]:80", "0.0.0.0:80",
		"169.254.169.254:80", "[fe80::1%eth0]:80", "[64:ff9b::a9fe:a9fe]:80", "100.64.1.1:443",
		"8.8.8.8:443", "[2606:4700::1111]:443", "10.1.2.3:8080", "[fd00::1]:80", "224.0.0.1:80", "garbage", "1.2.3.4",
		"127.1:80", "2130706433:80", "0x7f000001:80", "0177.0.0.1:80", "127.000.000.001:80", "0:80",
		"0x7f.1", "017700000001", "0xA9FEA9FE", "10.1", "192.168.257", "127.1.", "localhost.",
	} {
		f.Add(s)
	}
	g := NewGuard(false)
	c := &Client{guard: g}
	f.Fuzz(func(t *testing.T, addr string) {
		if ip, ok := ParseHostAddr(addr); ok {
			ip = ip.WithZone("").Unmap()
			internal := ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsMulticast() || ip.IsUnspecified()
			if internal && c.checkHost(context.Background(), addr, false) == nil {
				t.Fatalf("URL host %q (= %s) allowed", addr, ip)
			}
		}
		err := g.Control("tcp", addr, nil)
		host, _, splitErr := net.SplitHostPort(addr)
		if splitErr != nil {
			if err == nil {
				t.Fatalf("unparsable address %q allowed", addr)
			}
			return
		}
		ip, perr := netip.ParseAddr(host)
		if perr != nil {
			if err == nil {
				t.Fatalf("non-IP host %q allowed", host)
			}
			return
		}
		ip = ip.WithZone("").Unmap()
		internal := ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
			ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified()
		if internal && err == nil {
			t.Fatalf("internal address %s (from %q) allowed", ip, addr)
		}
	})
}
