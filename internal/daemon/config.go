package daemon

import (
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/askygo/asky/internal/config"
)

// DefaultListen is where the HTTP API listens when [daemon.http] says
// nothing: loopback only.
const DefaultListen = "127.0.0.1:8765"

// DefaultTokenEnv names the variable holding the API token by default.
const DefaultTokenEnv = "ASKY_DAEMON_TOKEN"

// DefaultTelegramAPI is the public Bot API.
const DefaultTelegramAPI = "https://api.telegram.org"

// HTTPConfig is [daemon.http].
type HTTPConfig struct {
	// Enabled is false only when the table says `enabled = false`.
	Enabled bool
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

// TelegramConfig is [daemon.telegram].
type TelegramConfig struct {
	Enabled bool
	// TokenEnv / TokenCmd say where the bot token comes from; TokenCmd
	// wins.
	TokenEnv string
	TokenCmd string
	// APIURL is the Bot API root (tests point it at a fake).
	APIURL string
	// AllowedUsers and AllowedChats are the ids that may talk to the
	// bot: a message is answered when its sender or its chat is listed.
	AllowedUsers []int64
	AllowedChats []int64
}

// Config is the daemon's part of config.toml.
type Config struct {
	HTTP     HTTPConfig
	Telegram TelegramConfig
	// XMPP is the top-level [xmpp] table.
	XMPP config.XMPP
	// TranscriptionModel and VisionModel are the model aliases chat
	// voice and image messages go through ([daemon] transcription_model,
	// vision_model); empty: such messages get "not supported yet".
	TranscriptionModel string
	VisionModel        string
	// ConfirmTranscripts shows a voice message's transcript and asks it
	// only after the user says yes ([daemon] confirm_transcripts, default
	// true, as the original).
	ConfirmTranscripts bool
}

// ParseConfig decodes the free-form [daemon] table (config keeps it as a
// map because the transports' keys are owned here) and checks the [xmpp]
// table of an enabled XMPP transport.
func ParseConfig(daemon map[string]any, xmpp config.XMPP) (Config, error) {
	c := Config{HTTP: HTTPConfig{Enabled: true, Listen: DefaultListen, TokenEnv: DefaultTokenEnv}, XMPP: xmpp, ConfirmTranscripts: true,
		Telegram: TelegramConfig{TokenEnv: "ASKY_TELEGRAM_TOKEN", APIURL: DefaultTelegramAPI}}
	// Sorted, so the same config always reports the same first problem.
	for _, k := range slices.Sorted(maps.Keys(daemon)) {
		v := daemon[k]
		t, ok := v.(map[string]any)
		if !ok && (k == "http" || k == "telegram") {
			return c, fmt.Errorf("config: daemon.%s must be a table", k)
		}
		switch k {
		case "http":
			if err := c.HTTP.decode(t); err != nil {
				return c, err
			}
		case "telegram":
			if err := c.Telegram.decode(t); err != nil {
				return c, err
			}
		case "transcription_model", "vision_model":
			s, ok := v.(string)
			if !ok {
				return c, fmt.Errorf("config: daemon.%s must be a model alias (a string)", k)
			}
			if k == "vision_model" {
				c.VisionModel = strings.TrimSpace(s)
			} else {
				c.TranscriptionModel = strings.TrimSpace(s)
			}
		case "confirm_transcripts":
			b, ok := v.(bool)
			if !ok {
				return c, fmt.Errorf("config: daemon.confirm_transcripts must be true or false")
			}
			c.ConfirmTranscripts = b
		case "xmpp":
			return c, fmt.Errorf("config: XMPP is configured in the top-level [xmpp] table, not [daemon.xmpp]")
		default:
			return c, fmt.Errorf("config: unknown key daemon.%s (known: http, telegram, transcription_model, vision_model, confirm_transcripts)", k)
		}
	}
	if xmpp.Enabled && strings.TrimSpace(xmpp.JID) == "" {
		return c, fmt.Errorf("config: [xmpp] is enabled but xmpp.jid is empty")
	}
	if c.Telegram.Enabled && c.Telegram.TokenEnv == "" && c.Telegram.TokenCmd == "" {
		return c, fmt.Errorf("config: [daemon.telegram] is enabled but has neither token_env nor token_cmd")
	}
	return c, nil
}

// CheckMediaModels checks the transcription and vision model aliases
// against the models of cfg: each must exist and speak the OpenAI API
// (audio/transcriptions, image content parts), and the vision model must
// say image_support = true.
func (c Config) CheckMediaModels(cfg *config.Config) error {
	for _, m := range []struct{ key, alias string }{{"transcription_model", c.TranscriptionModel}, {"vision_model", c.VisionModel}} {
		if m.alias == "" {
			continue
		}
		model, ok := cfg.Models[m.alias]
		if !ok {
			return fmt.Errorf("config: daemon.%s %q is not a configured model alias (have: %s)", m.key, m.alias, strings.Join(slices.Sorted(maps.Keys(cfg.Models)), ", "))
		}
		if a, _ := cfg.APIFor(model.API); a.Type != "" && a.Type != "openai" {
			return fmt.Errorf("config: daemon.%s %q uses a %s API; voice and image messages need an OpenAI-compatible one", m.key, m.alias, a.Type)
		}
		if m.key == "vision_model" && !model.ImageSupport {
			return fmt.Errorf("config: daemon.vision_model %q does not say image_support = true in [models.%s]", m.alias, m.alias)
		}
	}
	return nil
}

// Transports names the enabled transports, in start order.
func (c Config) Transports() []string {
	var out []string
	if c.HTTP.Enabled {
		out = append(out, "http")
	}
	if c.XMPP.Enabled {
		out = append(out, "xmpp")
	}
	if c.Telegram.Enabled {
		out = append(out, "telegram")
	}
	return out
}

// boolKey reads daemon.<table>.enabled.
func boolKey(table string, v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("config: daemon.%s.enabled must be true or false", table)
	}
	return b, nil
}

func (tc *TelegramConfig) decode(t map[string]any) error {
	ids := func(k string, v any) ([]int64, error) {
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("config: daemon.telegram.%s must be a list of numeric ids", k)
		}
		var out []int64
		for _, x := range list {
			n, ok := x.(int64)
			if !ok {
				return nil, fmt.Errorf("config: daemon.telegram.%s must be a list of numeric ids, got %v", k, x)
			}
			out = append(out, n)
		}
		return out, nil
	}
	for k, v := range t {
		var err error
		switch k {
		case "enabled":
			tc.Enabled, err = boolKey("telegram", v)
		case "token_env", "token_cmd", "api_url":
			s, ok := v.(string)
			if !ok {
				return fmt.Errorf("config: daemon.telegram.%s must be a string", k)
			}
			s = strings.TrimSpace(s)
			switch k {
			case "token_env":
				tc.TokenEnv = s
			case "token_cmd":
				tc.TokenCmd = s
			default:
				tc.APIURL = strings.TrimRight(s, "/")
			}
		case "allowed_users":
			tc.AllowedUsers, err = ids(k, v)
		case "allowed_chats":
			tc.AllowedChats, err = ids(k, v)
		case "token":
			return fmt.Errorf("config: daemon.telegram.token: put the bot token in an environment variable named by token_env, or a token_cmd")
		default:
			return fmt.Errorf("config: unknown key daemon.telegram.%s (known: enabled, token_env, token_cmd, api_url, allowed_users, allowed_chats)", k)
		}
		if err != nil {
			return err
		}
	}
	if tc.APIURL == "" {
		tc.APIURL = DefaultTelegramAPI
	}
	if u, err := url.Parse(tc.APIURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("config: daemon.telegram.api_url %q is not an http(s) URL", tc.APIURL)
	}
	return nil
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
		case "enabled":
			h.Enabled, err = boolKey("http", v)
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
			return fmt.Errorf("config: unknown key daemon.http.%s (known: enabled, listen, token_env, token_cmd, allowed_hosts, allow_no_token, rate, burst)", k)
		}
		if err != nil {
			return err
		}
	}
	if h.Listen == "" {
		h.Listen = DefaultListen
	}
	if err := CheckListen(h.Listen); err != nil {
		return fmt.Errorf("config: daemon.http.listen %w", err)
	}
	return nil
}

// CheckListen refuses a listen address the HTTP API could not bind, so
// `config set` and `config daemon edit` refuse it instead of the daemon
// failing at start.
func CheckListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port", addr)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("%q: the port must be 0-65535", addr)
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
