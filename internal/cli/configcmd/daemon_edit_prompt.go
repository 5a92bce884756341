package configcmd

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/daemon"
)

// envName is what a *_env value must look like: a variable name, never
// the secret itself.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// botToken is the shape of a Telegram bot token (id:secret).
var botToken = regexp.MustCompile(`^\d{5,}:[A-Za-z0-9_-]{20,}$`)

// errInputDone ends the questions at a section's yes/no (Ctrl-D): what
// was answered is written, the rest stays as it is.
var errInputDone = errors.New("input ended")

// promptDaemon asks for the daemon's settings section by section: the
// HTTP API, then whether to answer over XMPP and Telegram and, if so,
// their accounts and allowlists. The current values are the defaults.
// Secrets are asked for by the name of the variable holding them, as the
// flags do; an answer that looks like the secret itself is refused.
func promptDaemon(p *prompter, getenv func(string) string, opts *DaemonEditOptions, cur daemon.Config) error {
	set := func(flags ...string) {
		for _, f := range flags {
			opts.set[f] = true
		}
	}
	var err error
	for {
		if opts.Listen, err = p.ask("Listen address", cur.HTTP.Listen); err != nil {
			return err
		}
		lerr := daemon.CheckListen(opts.Listen)
		if lerr == nil {
			break
		}
		fmt.Fprintf(p.out, "  %v; give host:port, e.g. 127.0.0.1:8765\n", lerr)
	}
	if opts.TokenEnv, err = askEnv(p, getenv, "Token environment variable", cur.HTTP.TokenEnv, "the HTTP API token"); err != nil {
		return err
	}
	hosts, err := askClearable(p, "Extra allowed Host names (comma separated)", strings.Join(cur.HTTP.AllowedHosts, ","))
	if err != nil {
		return err
	}
	opts.AllowedHosts = splitList(hosts)
	set("listen", "token-env", "allowed-host")

	sections := []struct {
		label, flag string
		enabled     bool
		on          *bool
		ask         func(*prompter, func(string) string, *DaemonEditOptions, daemon.Config) error
	}{
		{"Answer over XMPP?", "xmpp-enabled", cur.XMPP.Enabled, &opts.XMPPEnabled, promptXMPP},
		{"Answer over Telegram?", "telegram-enabled", cur.Telegram.Enabled, &opts.TelegramEnabled, promptTelegram},
	}
	for _, sec := range sections {
		on, err := askSection(p, sec.label, sec.enabled)
		if errors.Is(err, errInputDone) {
			return nil
		} else if err != nil {
			return err
		}
		if on || sec.enabled {
			*sec.on = on
			set(sec.flag)
		}
		if on {
			if err := sec.ask(p, getenv, opts, cur); err != nil {
				return err
			}
		}
	}
	return nil
}

func promptXMPP(p *prompter, getenv func(string) string, opts *DaemonEditOptions, cur daemon.Config) error {
	x := cur.XMPP
	var err error
	if opts.XMPPJID, err = askValid(p, "Bot JID (user@domain)", x.JID, func(s string) error {
		if strings.ContainsAny(s, " \t") || !strings.Contains(s, "@") || strings.HasPrefix(s, "@") || strings.HasSuffix(s, "@") {
			return fmt.Errorf("%q is not a JID like bot@example.org", s)
		}
		return nil
	}); err != nil {
		return err
	}
	if x.PasswordCmd != "" {
		fmt.Fprintf(p.out, "  (password_cmd %q is set and wins over the variable; --xmpp-password-cmd changes it)\n", x.PasswordCmd)
	}
	if opts.XMPPPasswordEnv, err = askEnv(p, getenv, "Password environment variable", x.PasswordEnv, "the XMPP password"); err != nil {
		return err
	}
	if opts.XMPPHost, err = askClearable(p, "Server host (blank: the JID's domain)", x.Host); err != nil {
		return err
	}
	port, err := askValid(p, "Server port", strconv.Itoa(x.Port), func(s string) error {
		if n, err := strconv.Atoi(s); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%q is not a port (1-65535)", s)
		}
		return nil
	})
	if err != nil {
		return err
	}
	opts.XMPPPort, _ = strconv.Atoi(port)
	jids, err := askValid(p, "JIDs allowed to chat (comma separated; bare = any resource)", strings.Join(x.AllowedJIDs, ","), func(s string) error {
		if len(splitList(s)) == 0 {
			return errors.New("name at least one JID (yours), or the bot answers nobody")
		}
		for _, j := range splitList(s) {
			if strings.ContainsAny(j, " \t") || strings.HasPrefix(j, "@") {
				return fmt.Errorf("%q is not a JID", j)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	opts.XMPPAllowedJIDs = splitList(jids)
	if opts.XMPPCAFile, err = askClearable(p, "CA file of a self-signed server (blank: the system's roots)", x.CAFile); err != nil {
		return err
	}
	for _, f := range []string{"xmpp-jid", "xmpp-password-env", "xmpp-host", "xmpp-port", "xmpp-allowed-jid", "xmpp-ca-file"} {
		opts.set[f] = true
	}
	return nil
}

func promptTelegram(p *prompter, getenv func(string) string, opts *DaemonEditOptions, cur daemon.Config) error {
	tg := cur.Telegram
	var err error
	if tg.TokenCmd != "" {
		fmt.Fprintf(p.out, "  (token_cmd %q is set and wins over the variable; --telegram-token-cmd changes it)\n", tg.TokenCmd)
	}
	if opts.TelegramTokenEnv, err = askEnv(p, getenv, "Bot token environment variable", tg.TokenEnv, "the token @BotFather gave"); err != nil {
		return err
	}
	for {
		if opts.TelegramUsers, err = askIDs(p, "Telegram user ids allowed (comma separated)", tg.AllowedUsers); err != nil {
			return err
		}
		if opts.TelegramChats, err = askIDs(p, "Telegram chat ids allowed (comma separated; groups are negative)", tg.AllowedChats); err != nil {
			return err
		}
		if len(opts.TelegramUsers)+len(opts.TelegramChats) > 0 {
			break
		}
		// The daemon refuses a bot that allows nobody.
		fmt.Fprintln(p.out, "  ✗ allow at least one user or chat id (yours: send /start to @userinfobot)")
	}
	for _, f := range []string{"telegram-token-env", "telegram-allowed-user", "telegram-allowed-chat"} {
		opts.set[f] = true
	}
	return nil
}

// askSection asks whether a transport is on; Ctrl-D here ends the
// questions (errInputDone).
func askSection(p *prompter, label string, def bool) (bool, error) {
	on, err := p.confirm(label, def)
	if err != nil && p.ended {
		fmt.Fprintln(p.out, "  (input ended: the rest is left as it is)")
		return false, errInputDone
	}
	return on, err
}

// askValid asks until check accepts the answer, three times at most.
func askValid(p *prompter, label, def string, check func(string) error) (string, error) {
	for range 3 {
		ans, err := p.ask(label, def)
		if err != nil {
			return "", err
		}
		if err = check(ans); err == nil {
			return ans, nil
		}
		fmt.Fprintf(p.out, "  ✗ %v\n", err)
	}
	return "", cmdutil.UsageError("pass the value as a flag instead (see --help)", "no usable answer for %q", label)
}

// askEnv asks for the name of the variable holding a secret. The secret
// itself is refused (it would be written to the config file), and a name
// that is not set in this shell gets a reminder.
func askEnv(p *prompter, getenv func(string) string, label, def, what string) (string, error) {
	name, err := askValid(p, label, def, func(s string) error {
		switch {
		case botToken.MatchString(s):
			return fmt.Errorf("that looks like the token itself; it is never written to the config: export it (export %s=…) and give the variable's name", defaultName(def))
		case !envName.MatchString(s):
			return fmt.Errorf("%q is not a variable name (letters, digits, _); %s itself is never written to the config: export it and give the variable's name", s, what)
		case s != strings.ToUpper(s) && getenv(s) == "":
			// "hunter2" is a valid name but far more likely the password.
			return fmt.Errorf("%q is not set in this shell and is not an UPPER_CASE variable name; %s itself is never written to the config: export it (export %s=…) and give the variable's name", s, what, defaultName(def))
		}
		return nil
	})
	if err == nil && getenv(name) == "" {
		fmt.Fprintf(p.out, "  note: %s is not set in this shell; export it where the daemon starts (export %s=…)\n", name, name)
	}
	return name, err
}

func defaultName(def string) string {
	if def == "" {
		return "NAME"
	}
	return def
}

// askIDs asks for a comma-separated list of numeric ids.
func askIDs(p *prompter, label string, def []int64) ([]int64, error) {
	strs := make([]string, len(def))
	for i, id := range def {
		strs[i] = strconv.FormatInt(id, 10)
	}
	var ids []int64
	_, err := askValid(p, clearLabel(label, len(def) > 0), strings.Join(strs, ","), func(s string) error {
		ids = ids[:0]
		for _, part := range splitList(orNone(s)) {
			id, err := strconv.ParseInt(part, 10, 64)
			if err != nil {
				return fmt.Errorf("%q is not a numeric id (Telegram ids are numbers, not @names)", part)
			}
			ids = append(ids, id)
		}
		return nil
	})
	return ids, err
}

// askClearable is ask where "-" empties a value that has a default.
func askClearable(p *prompter, label, def string) (string, error) {
	ans, err := p.ask(clearLabel(label, def != ""), def)
	return orNone(ans), err
}

func clearLabel(label string, hasDefault bool) string {
	if hasDefault {
		return label + " (- for none)"
	}
	return label
}

func orNone(ans string) string {
	if ans == "-" {
		return ""
	}
	return ans
}
