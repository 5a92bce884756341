package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// ParseHostAddr reads host the way the C library's inet_aton (and so
// getaddrinfo in a forward proxy, curl or a browser) does, on top of the
// standard IPv4 and IPv6 forms: one to four dot-separated parts, each
// decimal, octal (leading 0) or hex (0x), the last part filling the
// remaining bytes. So 127.1, 2130706433, 0x7f000001, 0177.0.0.1,
// 127.000.000.001 and 0 are all addresses, not names. A trailing dot is
// ignored. ok is false for anything that is a host name.
func ParseHostAddr(host string) (netip.Addr, bool) {
	h := strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.WithZone("").Unmap(), true
	}
	parts := strings.Split(h, ".")
	if h == "" || len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := atonPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	// Every part but the last is one byte; the last fills the rest.
	var n uint64
	for _, v := range vals[:len(vals)-1] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		n = n<<8 | v
	}
	rest := uint(8 * (4 - len(vals) + 1))
	last := vals[len(vals)-1]
	if last >= 1<<rest {
		return netip.Addr{}, false
	}
	n = n<<rest | last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// atonPart parses one inet_aton component.
func atonPart(p string) (uint64, bool) {
	base, digits := 10, p
	switch {
	case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
		base, digits = 16, p[2:]
		if digits == "" {
			return 0, true // "0x" alone is 0 to glibc
		}
	case len(p) > 1 && p[0] == '0':
		base, digits = 8, p[1:]
	}
	if digits == "" || strings.ContainsAny(digits, "+-_") {
		return 0, false
	}
	v, err := strconv.ParseUint(digits, base, 64)
	if err != nil || v > 0xffffffff {
		return 0, false
	}
	return v, true
}

// resolver looks host names up; tests replace it.
type resolver func(ctx context.Context, host string) ([]netip.Addr, error)

func defaultResolver(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// checkHost decides on a URL host before any request is made: address
// spellings are normalised (ParseHostAddr) and vetted by the guard, the
// localhost names are refused, and, when resolve is set, a name is
// looked up and refused if any address it has is internal. The dial-time
// check stays the last word on the direct path; with a proxy this is the
// only check, so names are resolved there.
func (c *Client) checkHost(ctx context.Context, host string, resolve bool) error {
	if hostAllowed(host, c.names) {
		return nil
	}
	if ip, ok := ParseHostAddr(host); ok {
		if err := c.guard.Check(ip); err != nil {
			return err
		}
		return nil
	}
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return fmt.Errorf("blocked: %s is a loopback name", h)
	}
	if !resolve {
		return nil
	}
	addrs, err := c.lookup(ctx, h)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) {
			// The proxy may resolve names this machine cannot (that is
			// often why it is there); it refuses unknown ones itself.
			return nil
		}
		return fmt.Errorf("blocked: cannot resolve %s to check it: %w", h, err)
	}
	for _, a := range addrs {
		if err := c.guard.Check(a); err != nil {
			return fmt.Errorf("%w (%s resolves to it)", err, h)
		}
	}
	return nil
}
