package cli

import "strings"

// legacyFlags maps the original asky's multi-letter single-dash flags, which
// pflag cannot parse as shorthands, to their long forms.
var legacyFlags = map[string]string{
	"-sp":       "--system-prompt",
	"-off":      "--tool-off",
	"-tool-off": "--tool-off",
	"-cc":       "--copy-clipboard",
	"-ss":       "--sticky-session",
	"-rs":       "--resume-session",
	"-se":       "--session-end",
	"-es":       "--session-end",
	"-sh":       "--session-history",
	"-ps":       "--print-session",
	"-sfm":      "--session-from-message",
	"-pa":       "--print-answer",
	"-em":       "--elephant-mode",
	"-tl":       "--terminal-lines",
	// Hidden alias of -sfm in the original.
	"--from-message": "--session-from-message",
}

// movedFlags are the original's flags that became grouped verbs here: an
// unknown-flag error for one of them names the command to use instead.
var movedFlags = map[string]string{
	"--help-all":                 "asky --help, and asky COMMAND --help",
	"-p":                         "asky prompts list",
	"--prompts":                  "asky prompts list",
	"--completion-script":        "asky completion bash|zsh|fish|powershell",
	"--query-corpus":             "asky corpus query TEXT",
	"--query-corpus-max-sources": "asky corpus query --top-k N TEXT",
	"--query-corpus-max-chunks":  "asky corpus query --top-k N TEXT",
	"--summarize-section":        "asky corpus sections SOURCE, then asky corpus summarize SOURCE --section ID",
	"--section-source":           "asky corpus summarize SOURCE",
	"--section-id":               "asky corpus summarize SOURCE --section ID",
	"--section-include-toc":      "asky corpus sections SOURCE",
	"--section-detail":           "asky corpus summarize SOURCE --detail compact|balanced|max",
	"--section-max-chunks":       "asky corpus summarize SOURCE --section ID",
	"--list-memories":            "asky memory list",
	"--delete-memory":            "asky memory delete ID",
	"--clear-memories":           "asky memory clear",
	"--delete-messages":          "asky history delete SELECTOR",
	"--delete-sessions":          "asky session delete SELECTOR",
	"--clean-session-research":   "asky session clean-research SELECTOR",
	"--daemon":                   "asky daemon start",
	"--foreground":               "asky daemon run",
	"--no-tray":                  "asky daemon start",
	"--config":                   "asky config show|get|set|doctor|model add|model edit|daemon edit",
	"--add-model":                "asky config model add",
	"--edit-model":               "asky config model edit ALIAS",
	"--edit-daemon":              "asky config daemon edit",
}

// movedFlagHint returns the hint for an unknown-flag error naming one of
// the original's moved flags, or "".
func movedFlagHint(err error) string {
	msg := err.Error()
	var name string
	switch {
	case strings.HasPrefix(msg, "unknown flag: "):
		name, _, _ = strings.Cut(strings.TrimPrefix(msg, "unknown flag: "), "=")
	case strings.HasPrefix(msg, "unknown shorthand flag: "):
		_, name, _ = strings.Cut(msg, " in ")
	}
	if to, ok := movedFlags[name]; ok {
		return "the original asky's " + name + " is `" + to + "` here"
	}
	return ""
}

// TranslateLegacyArgs rewrites legacy flags before cobra sees them. Tokens
// after "--" are left alone: they belong to the query.
func TranslateLegacyArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if long, ok := legacyFlags[a]; ok {
			out = append(out, long)
			continue
		}
		// The original's argparse also took `-sp=text`, `-off=a,b`.
		if name, value, ok := strings.Cut(a, "="); ok {
			if long, known := legacyFlags[name]; known {
				out = append(out, long+"="+value)
				continue
			}
		}
		out = append(out, a)
	}
	return out
}
