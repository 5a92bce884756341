package cli

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
		out = append(out, a)
	}
	return out
}
