package config

import "fmt"

// XMPP is the original's [xmpp] table (its xmpp.toml), read by the
// daemon's XMPP transport. Its key names are kept so an existing
// xmpp.toml works unchanged.
type XMPP struct {
	// Enabled asks the daemon to log in; the original ships false.
	Enabled bool   `toml:"enabled"`
	JID     string `toml:"jid"`
	// PasswordEnv names the environment variable holding the password;
	// PasswordCmd is a shell command printing it (wins over PasswordEnv).
	PasswordEnv string `toml:"password_env"`
	PasswordCmd string `toml:"password_cmd,omitempty"`
	// Password is a literal password; accepted as in the original but
	// warned about like every literal secret.
	Password Secret `toml:"password,omitempty"`
	// Host and Port reach the server; an empty host is the JID's domain.
	Host     string `toml:"host"`
	Port     int    `toml:"port"`
	Resource string `toml:"resource"`
	// AllowedJIDs may chat with the bot: a bare JID admits any of its
	// resources, a full JID only that one.
	AllowedJIDs   []string `toml:"allowed_jids"`
	CommandPrefix string   `toml:"command_prefix"`
	// ResponseChunkChars bounds one outgoing message; longer answers are
	// split on newline boundaries.
	ResponseChunkChars int `toml:"response_chunk_chars"`
	// CAFile is a PEM bundle the server's certificate must chain to (for
	// a self-hosted server); empty uses the system roots.
	CAFile string `toml:"ca_file,omitempty"`
	// TLSInsecureLoopback skips certificate verification, and only when
	// the server is on a loopback address (tests, local development).
	TLSInsecureLoopback bool `toml:"tls_insecure_loopback,omitempty"`
}

// xmppDefaults are the original's xmpp.toml defaults (the chunk size is
// its code fallback: 10000 chars is more than most clients show).
func xmppDefaults() XMPP {
	return XMPP{PasswordEnv: "ASKY_XMPP_PASSWORD", Port: 5222, Resource: "asky", CommandPrefix: "/asky", ResponseChunkChars: 3000}
}

// validate rejects XMPP values that parse but cannot work.
func (x XMPP) validate(origin func(string) string) error {
	bad := func(key, msg string) error {
		k := "xmpp." + key
		return &ValueError{File: origin(k), Key: k, Message: msg}
	}
	if x.Port < 0 || x.Port > 65535 {
		return bad("port", fmt.Sprintf("port must be between 1 and 65535, not %d", x.Port))
	}
	if x.ResponseChunkChars < 0 {
		return bad("response_chunk_chars", fmt.Sprintf("must not be negative, got %d", x.ResponseChunkChars))
	}
	return nil
}
