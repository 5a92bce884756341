package fetch

import (
	"net"
	"net/netip"
	"testing"
)

// FuzzSSRFGuard checks the dial-time guard against an independent oracle:
// whatever the standard library classifies as loopback, private,
// link-local, multicast or unspecified (after unmapping IPv4-in-IPv6) must
// be refused by the default guard, and Control never panics.
func FuzzSSRFGuard(f *testing.F) {
	for _, s := range []string{
		"127.0.0.1:80", "[::1]:443", "[::ffff:127.0.0.1]:80", "[::ffff:10.0.0.1]:80", "0.0.0.0:80",
		"169.254.169.254:80", "[fe80::1%eth0]:80", "[64:ff9b::a9fe:a9fe]:80", "100.64.1.1:443",
		"8.8.8.8:443", "[2606:4700::1111]:443", "10.1.2.3:8080", "[fd00::1]:80", "224.0.0.1:80", "garbage", "1.2.3.4",
	} {
		f.Add(s)
	}
	g := NewGuard(false)
	f.Fuzz(func(t *testing.T, addr string) {
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
