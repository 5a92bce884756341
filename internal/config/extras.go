package config

import (
	"context"
	"fmt"
)

// CustomTool is a [tool.NAME] command tool (the original's user.toml
// format, plus argv commands and limits). The tools/custom package builds
// and runs it; it is never run through a shell.
type CustomTool struct {
	// Command is a template string ("ls {flags} {path}") or an argv array
	// (["ls", "{flags}", "{path}"]).
	Command     any    `toml:"command"`
	Description string `toml:"description"`
	// Parameters is the JSON schema of the arguments (type, properties
	// with per-property default, required).
	Parameters map[string]any `toml:"parameters"`
	// ParameterType is accepted from the original's files ("object").
	ParameterType string `toml:"parameter_type,omitempty"`
	Enabled       *bool  `toml:"enabled"`
	// Timeout in seconds (default 30, as the original).
	Timeout int `toml:"timeout,omitzero"`
	// WorkingDir is where the command runs (default: the current dir).
	WorkingDir string `toml:"working_dir,omitempty"`
	// MaxOutputBytes caps stdout and stderr each (default 64 KiB).
	MaxOutputBytes int `toml:"max_output_bytes,omitzero"`
	// Remote offers the tool to daemon (remote) questions too.
	Remote bool `toml:"remote,omitempty"`
	// OptionParams name parameters whose values may be options (start
	// with "-"); by default "flags" and "options".
	OptionParams []string `toml:"option_params,omitempty"`
	// EndOfOptions inserts "--" before the first data argument (default
	// true); set false for a program that does not understand "--".
	EndOfOptions *bool `toml:"end_of_options,omitempty"`
}

// Email is the [email] table: the SMTP server --sendmail uses.
type Email struct {
	SMTPHost string `toml:"smtp_host"`
	SMTPPort int    `toml:"smtp_port"`
	// SMTPUseSSL connects with implicit TLS (port 465); SMTPUseTLS
	// upgrades a plain connection with STARTTLS (required when true).
	SMTPUseSSL      bool   `toml:"smtp_use_ssl"`
	SMTPUseTLS      bool   `toml:"smtp_use_tls"`
	SMTPUser        string `toml:"smtp_user,omitempty"`
	SMTPUserEnv     string `toml:"smtp_user_env"`
	SMTPPasswordEnv string `toml:"smtp_password_env"`
	SMTPPasswordCmd string `toml:"smtp_password_cmd,omitempty"`
	FromAddress     string `toml:"from_address"`
	// InsecureSkipVerify accepts any server certificate (tests, self-signed
	// relays on localhost).
	InsecureSkipVerify bool `toml:"insecure_skip_verify,omitempty"`
}

// PushEndpoint is one [push_data.NAME] endpoint for --push-data.
type PushEndpoint struct {
	URL         string `toml:"url"`
	Method      string `toml:"method"`
	Enabled     *bool  `toml:"enabled"`
	Description string `toml:"description,omitempty"`
	// Headers are sent as given; a key ending in _env names an
	// environment variable holding the value (Authorization_env).
	Headers map[string]string `toml:"headers,omitempty"`
	// Fields are extra payload fields: static values, NAME_env keys, or
	// ${query} ${answer} ${timestamp} ${model} and ${param} from the
	// ENDPOINT?param=value form.
	Fields map[string]any `toml:"fields,omitempty"`
}

// validateExtras rejects negative limits and unknown methods in the tables
// of this file.
func (c *Config) validateExtras() error {
	for _, name := range sortedKeys(c.Tool) {
		t := c.Tool[name]
		for key, v := range map[string]int{"timeout": t.Timeout, "max_output_bytes": t.MaxOutputBytes} {
			if v < 0 {
				k := formatKey([]string{"tool", name, key})
				return &ValueError{File: c.origins[k], Key: k, Message: fmt.Sprintf("must not be negative, got %d", v)}
			}
		}
	}
	if c.Email.SMTPPort < 0 || c.Email.SMTPPort > 65535 {
		k := "email.smtp_port"
		return &ValueError{File: c.origins[k], Key: k, Message: fmt.Sprintf("must be a port number, got %d", c.Email.SMTPPort)}
	}
	for _, name := range sortedKeys(c.PushData) {
		switch m := c.PushData[name].Method; m {
		case "", "get", "post", "GET", "POST":
		default:
			k := formatKey([]string{"push_data", name, "method"})
			return &ValueError{File: c.origins[k], Key: k, Message: fmt.Sprintf("method must be get or post, not %q", m)}
		}
	}
	// The relevance floor is on corpus query's 0–1 scale (--min-score
	// refuses the same values); above 1 nothing could ever match.
	if v := c.Research.MinRelevance; v < 0 || v > 1 {
		k := "research.min_relevance"
		return &ValueError{File: c.origins[k], Key: k, Message: fmt.Sprintf("must be between 0 and 1, got %g", v)}
	}
	for k, v := range map[string]int{"general.query_summary_max_chars": c.General.QuerySummaryMaxChars,
		"general.answer_summary_max_chars": c.General.AnswerSummaryMaxChars,
		"summarizer.lazy_threshold_chars":  c.Summarizer.LazyThresholdChars} {
		if v <= 0 {
			return &ValueError{File: c.origins[k], Key: k, Message: fmt.Sprintf("must be a positive number of characters, got %d", v)}
		}
	}
	if c.General.TerminalContextLines < 0 {
		k := "general.terminal_context_lines"
		return &ValueError{File: c.origins[k], Key: k, Message: fmt.Sprintf("must not be negative, got %d", c.General.TerminalContextLines)}
	}
	return nil
}

// defaultEmail is the original's push_data.toml [email] table without its
// smtp.gmail.com host: mail goes nowhere until a server is configured.
func defaultEmail() Email {
	return Email{SMTPPort: 587, SMTPUseTLS: true, SMTPUserEnv: "ASKY_SMTP_USER", SMTPPasswordEnv: "ASKY_SMTP_PASSWORD"}
}

// SMTPCredentials returns the SMTP user and password: the user literal or
// from smtp_user_env, the password from smtp_password_cmd (a password
// manager) or smtp_password_env. Both empty means no authentication.
func (e Email) SMTPCredentials(ctx context.Context, env Env) (user string, pass Secret, err error) {
	user = e.SMTPUser
	if user == "" && e.SMTPUserEnv != "" {
		user = env.Getenv(e.SMTPUserEnv)
	}
	switch {
	case e.SMTPPasswordCmd != "":
		pass, err = runKeyCmd(ctx, e.SMTPPasswordCmd, env.KeyCmdTimeout)
		if err != nil {
			return "", "", fmt.Errorf("email.smtp_password_cmd: %w", err)
		}
	case e.SMTPPasswordEnv != "":
		pass = Secret(env.Getenv(e.SMTPPasswordEnv))
	}
	if user != "" && pass == "" {
		return "", "", fmt.Errorf("SMTP user %s has no password: export %s or set email.smtp_password_cmd", user, e.SMTPPasswordEnv)
	}
	return user, pass, nil
}
