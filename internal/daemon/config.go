package daemon

import (
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
)

// DefaultListen is where the HTTP API listens when [daemon.http] says
// nothing: loopback only.
const DefaultListen = "127.0.0.1:8765"

// DefaultTokenEnv names the variable holding the API token by default.
const DefaultTokenEnv = "ASKY_DAEMON_TOKEN"

// HTTPConfig is [daemon.http].
type HTTPConfig struct {
	// Listen is host:port. Anything but loopback requires a token.
	Listen string
	// TokenEnv names the environment variable holding the bearer token.
	TokenEnv string
	// TokenCmd is a shell command whose first output line is the token;
	// it wins over TokenEnv.
	TokenCmd string
	// AllowedHosts are extra Host header names accepted besides
	// localhost, 127.0.0.1 and [::1] (DNS rebinding guard).
	AllowedHosts []string
	// AllowNoToken serves without a token, which any local program can
	// then use; it must be asked for explicitly (allow_no_token = true).
	AllowNoToken bool
	// Rate (requests per second) and Burst limit each client; zero keeps
	// the server's defaults.
	Rate  float64
	Burst int
}

// Config is the daemon's part of config.toml.
type Config struct {
	HTTP HTTPConfig
	// Unsupported lists transports configured but not served by this
	// version (xmpp, telegram), so the daemon can say so at start.
	Unsupported []string
}

// ParseConfig decodes the free-form [daemon] table (config keeps it as a
// map because the transports' keys are owned here). xmpp is the top-level
// [xmpp] table, whose presence means XMPP is configured.
func ParseConfig(daemon, xmpp map[string]any) (Config, error) {
	c := Config{HTTP: HTTPConfig{Listen: DefaultListen, TokenEnv: DefaultTokenEnv}}
	if enabled(xmpp) {
		c.Unsupported = append(c.Unsupported, "xmpp")
	}
	// Sorted, so the same config always reports the same first problem.
	for _, k := range slices.Sorted(maps.Keys(daemon)) {
		v := daemon[k]
		switch k {
		case "http":
			t, ok := v.(map[string]any)
			if !ok {
				return c, fmt.Errorf("config: daemon.http must be a table")
			}
			if err := c.HTTP.decode(t); err != nil {
				return c, err
			}
		case "xmpp", "telegram":
			if t, _ := v.(map[string]any); enabled(t) && !slices.Contains(c.Unsupported, k) {
				c.Unsupported = append(c.Unsupported, k)
			}
		default:
			return c, fmt.Errorf("config: unknown key daemon.%s (known: http, xmpp, telegram)", k)
		}
	}
	slices.Sort(c.Unsupported)
	return c, nil
}

// enabled reports whether a transport table asks for the transport: the
// original's xmpp.toml ships `enabled = false`, which is not a request.
func enabled(t map[string]any) bool {
	if len(t) == 0 {
		return false
	}
	if on, ok := t["enabled"].(bool); ok {
		return on
	}
	return true
}

func (h *HTTPConfig) decode(t map[string]any) error {
	str := func(k string, v any) (string, error) {
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("config: daemon.http.%s must be a string", k)
		}
		return strings.TrimSpace(s), nil
	}
	for _, k := range slices.Sorted(maps.Keys(t)) {
		v := t[k]
		var err error
		switch k {
		case "listen":
			h.Listen, err = str(k, v)
		case "token_env":
			h.TokenEnv, err = str(k, v)
		case "token_cmd":
			h.TokenCmd, err = str(k, v)
		case "allow_no_token":
			b, ok := v.(bool)
			if !ok {
				return fmt.Errorf("config: daemon.http.allow_no_token must be true or false")
			}
			h.AllowNoToken = b
		case "rate", "burst":
			var n float64
			switch x := v.(type) {
			case int64:
				n = float64(x)
			case float64:
				n = x
			default:
				return fmt.Errorf("config: daemon.http.%s must be a number", k)
			}
			if n <= 0 || (k == "burst" && n != float64(int(n))) {
				return fmt.Errorf("config: daemon.http.%s must be a positive %s, got %v", k, map[string]string{"rate": "number of requests per second", "burst": "whole number"}[k], v)
			}
			if k == "rate" {
				h.Rate = n
			} else {
				h.Burst = int(n)
			}
		case "allowed_hosts":
			list, ok := v.([]any)
			if !ok {
				return fmt.Errorf("config: daemon.http.allowed_hosts must be a list of host names")
			}
			h.AllowedHosts = nil
			for _, x := range list {
				s, err := str(k, x)
				if err != nil {
					return err
				}
				h.AllowedHosts = append(h.AllowedHosts, strings.ToLower(s))
			}
		default:
			return fmt.Errorf("config: unknown key daemon.http.%s (known: listen, token_env, token_cmd, allowed_hosts, allow_no_token, rate, burst)", k)
		}
		if err != nil {
			return err
		}
	}
	if h.Listen == "" {
		h.Listen = DefaultListen
	}
	if _, _, err := net.SplitHostPort(h.Listen); err != nil {
		return fmt.Errorf("config: daemon.http.listen %q is not host:port", h.Listen)
	}
	return nil
}

// Loopback reports whether the listen address only accepts local
// connections. An empty host (":8765") listens everywhere.
func (h HTTPConfig) Loopback() bool {
	host, _, err := net.SplitHostPort(h.Listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
