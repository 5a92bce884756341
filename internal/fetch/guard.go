package fetch

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
)

// Guard decides which IP addresses the guarded client may connect to. It is
// consulted from net.Dialer.Control, i.e. on the address actually being
// dialled after DNS resolution, so DNS rebinding and redirects into private
// space are covered by the same check (reliability.md §3.2).
type Guard struct {
	allowPrivate bool
	allow        []netip.Prefix
}

// BlockedError reports a refused destination address.
type BlockedError struct {
	Addr   netip.Addr
	Reason string
}

func (e *BlockedError) Error() string {
	article := "a"
	if e.Reason == "unspecified" {
		article = "an"
	}
	return fmt.Sprintf("blocked: %s is %s %s address (asky does not fetch internal addresses; allow it with [fetch] allow_hosts or allow_private_networks)", e.Addr, article, e.Reason)
}

type deniedRange struct {
	prefix netip.Prefix
	reason string
	// private ranges are reachable when allow_private_networks is set;
	// the others (metadata, multicast, unspecified, reserved) never are.
	private bool
}

func mustPrefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// deniedRanges are the special-purpose ranges (IANA registries) a page
// fetch must never reach. IPv6 outside 2000::/3 is denied separately.
var deniedRanges = []deniedRange{
	{mustPrefix("169.254.169.254/32"), "cloud metadata", false},
	{mustPrefix("fd00:ec2::254/128"), "cloud metadata", false},
	{mustPrefix("0.0.0.0/8"), "unspecified", false},
	{mustPrefix("10.0.0.0/8"), "private", true},
	{mustPrefix("100.64.0.0/10"), "carrier-grade NAT", true},
	{mustPrefix("127.0.0.0/8"), "loopback", true},
	{mustPrefix("169.254.0.0/16"), "link-local", true},
	{mustPrefix("172.16.0.0/12"), "private", true},
	{mustPrefix("192.0.0.0/24"), "reserved", false},
	{mustPrefix("192.0.2.0/24"), "documentation", false},
	{mustPrefix("192.88.99.0/24"), "reserved", false},
	{mustPrefix("192.168.0.0/16"), "private", true},
	{mustPrefix("198.18.0.0/15"), "benchmarking", false},
	{mustPrefix("198.51.100.0/24"), "documentation", false},
	{mustPrefix("203.0.113.0/24"), "documentation", false},
	{mustPrefix("224.0.0.0/4"), "multicast", false},
	{mustPrefix("240.0.0.0/4"), "reserved", false},
	{mustPrefix("::/128"), "unspecified", false},
	{mustPrefix("::1/128"), "loopback", true},
	{mustPrefix("64:ff9b::/96"), "NAT64", false},
	{mustPrefix("64:ff9b:1::/48"), "NAT64", false},
	{mustPrefix("100::/64"), "discard", false},
	{mustPrefix("2001::/23"), "reserved", false},
	{mustPrefix("2001:db8::/32"), "documentation", false},
	{mustPrefix("2002::/16"), "6to4", false},
	{mustPrefix("fc00::/7"), "unique-local", true},
	{mustPrefix("fe80::/10"), "link-local", true},
	{mustPrefix("fec0::/10"), "site-local", true},
	{mustPrefix("ff00::/8"), "multicast", false},
}

var globalUnicast6 = mustPrefix("2000::/3")

// NewGuard returns a guard. allowPrivate opens private, loopback, CGNAT,
// ULA and link-local ranges (never metadata, multicast or reserved ones);
// allow lists prefixes that are always permitted (tests use 127.0.0.2/32).
func NewGuard(allowPrivate bool, allow ...netip.Prefix) *Guard {
	return &Guard{allowPrivate: allowPrivate, allow: allow}
}

// Check returns a *BlockedError when ip must not be dialled.
func (g *Guard) Check(ip netip.Addr) error {
	ip = ip.WithZone("").Unmap()
	if !ip.IsValid() {
		return &BlockedError{Addr: ip, Reason: "invalid"}
	}
	for _, p := range g.allow {
		if p.Contains(ip) {
			return nil
		}
	}
	for _, d := range deniedRanges {
		if d.prefix.Contains(ip) {
			if d.private && g.allowPrivate {
				return nil
			}
			return &BlockedError{Addr: ip, Reason: d.reason}
		}
	}
	if ip.Is6() && !globalUnicast6.Contains(ip) {
		return &BlockedError{Addr: ip, Reason: "non-global IPv6"}
	}
	return nil
}

// Control is a net.Dialer.Control hook: it vets the resolved address right
// before connect(2).
func (g *Guard) Control(network, address string, _ syscall.RawConn) error {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return fmt.Errorf("blocked: network %q is not allowed", network)
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("blocked: bad address %q", address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("blocked: %q is not an IP address", host)
	}
	return g.Check(ip)
}

// parseAllowHosts splits [fetch] allow_hosts into IP prefixes (checked at
// dial time) and host names (exact, or ".suffix" / "*.suffix" for a domain
// and its subdomains), which skip the address check for that host.
func parseAllowHosts(entries []string) (prefixes []netip.Prefix, names []string, err error) {
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" {
			continue
		}
		if p, perr := netip.ParsePrefix(e); perr == nil {
			prefixes = append(prefixes, p.Masked())
			continue
		}
		if a, aerr := netip.ParseAddr(strings.Trim(e, "[]")); aerr == nil {
			a = a.Unmap()
			prefixes = append(prefixes, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		if strings.ContainsAny(e, "/:@ ") {
			return nil, nil, fmt.Errorf("[fetch] allow_hosts: %q is neither a host name, an IP address nor a CIDR prefix", e)
		}
		names = append(names, strings.TrimPrefix(e, "*"))
	}
	return prefixes, names, nil
}

// hostAllowed reports whether host matches an allow_hosts name entry.
func hostAllowed(host string, names []string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, n := range names {
		if strings.HasPrefix(n, ".") {
			if strings.HasSuffix(host, n) || host == n[1:] {
				return true
			}
			continue
		}
		if host == n {
			return true
		}
	}
	return false
}
