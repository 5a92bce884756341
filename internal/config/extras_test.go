package config

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestExtrasValidated(t *testing.T) {
	cases := map[string]string{
		"[tool.x]\ncommand = \"ls\"\ntimeout = -1\n":                  "tool.x.timeout",
		"[tool.x]\ncommand = \"ls\"\nmax_output_bytes = -5\n":         "tool.x.max_output_bytes",
		"[email]\nsmtp_port = 70000\n":                                "email.smtp_port",
		"[push_data.hook]\nurl = \"http://h\"\nmethod = \"delete\"\n": "push_data.hook.method",
		"[general]\nterminal_context_lines = -2\n":                    "general.terminal_context_lines",
		"[research]\nmin_relevance = 5\n":                             "research.min_relevance",
		"[research]\nmin_relevance = -0.1\n":                          "research.min_relevance",
		"[summarizer]\nlazy_threshold_chars = 0\n":                    "summarizer.lazy_threshold_chars",
		"[general]\nanswer_summary_max_chars = -1\n":                  "general.answer_summary_max_chars",
	}
	for body, key := range cases {
		dir, getenv := home(t, map[string]string{"config.toml": body})
		_, err := Load(getenv)
		var ve *ValueError
		if !errors.As(err, &ve) || ve.Key != key || ve.File != filepath.Join(dir, "config.toml") {
			t.Errorf("%q: err = %v", body, err)
		}
	}
	// The original's files load without unknown-key warnings.
	_, getenv := home(t, map[string]string{
		"user.toml":      "[tool.list_dir]\ncommand = \"ls {flags} {path}\"\nparameter_type = \"object\"\n[tool.list_dir.parameters]\ntype = \"object\"\n",
		"push_data.toml": "[email]\nsmtp_host = \"smtp.example.org\"\nsmtp_user_env = \"U\"\n[push_data.x]\nurl = \"http://h\"\nheaders = { A_env = \"B\" }\nfields = { q = \"${query}\" }\n",
	})
	cfg, err := Load(getenv)
	if err != nil || len(cfg.Diagnostics) > 0 || cfg.Email.SMTPHost != "smtp.example.org" || cfg.PushData["x"].Fields["q"] != "${query}" {
		t.Fatalf("original files: %v %v", err, cfg.Diagnostics)
	}
	if cfg.General.TerminalContextLines != 10 || cfg.Email.SMTPPort != 587 || !cfg.Email.SMTPUseTLS {
		t.Errorf("defaults: %+v %+v", cfg.General.TerminalContextLines, cfg.Email)
	}
	// The -c -s summary keys are read, not warned about as inert.
	_, getenv = home(t, map[string]string{"config.toml": "[general]\nquery_summary_max_chars = 80\nanswer_summary_max_chars = 900\n[summarizer]\nlazy_threshold_chars = 500\n"})
	cfg, err = Load(getenv)
	if err != nil || len(cfg.Diagnostics) > 0 || cfg.General.QuerySummaryMaxChars != 80 || cfg.General.AnswerSummaryMaxChars != 900 || cfg.Summarizer.LazyThresholdChars != 500 {
		t.Fatalf("summary keys: %v %v %+v", err, cfg.Diagnostics, cfg.Summarizer)
	}
}
