package query

import (
	"regexp"
	"strings"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/tools"
)

// toolsFlagList is --tools given without a value.
const toolsFlagList = "list"

var toolListRe = regexp.MustCompile(`^[A-Za-z0-9_-]+(,[A-Za-z0-9_-]+)*,?$`)

// applyToolsFlag resolves the original's --tools forms: no value lists the
// tools; `off` (alone: all) or `off a,b` turns tools off for this question
// and, like -off, for the session; `reset` forgets the session's list.
// pflag cannot take an optional value from the next word, so "off",
// "reset" and the list after off arrive as the first words.
func applyToolsFlag(opts *Options, cfg *config.Config) error {
	v := opts.Tools
	if v == "" {
		return nil
	}
	if v == toolsFlagList && len(opts.Words) > 0 {
		switch opts.Words[0] {
		case "off", "reset", "list":
			v, opts.Words = opts.Words[0], opts.Words[1:]
		}
	}
	mode, list, _ := strings.Cut(v, ",")
	switch mode {
	case toolsFlagList:
		if len(opts.Words) > 0 {
			return cmdutil.UsageError(`to ask without tools: asky --tools off "`+joinWords(opts.Words)+`"`,
				"--tools takes off [a,b] or reset before a question; alone it lists the tools")
		}
		opts.ListTools = true
	case "reset":
		opts.ToolsReset = true
	case "off":
		if list == "" && len(opts.Words) > 0 && isToolList(opts.Words[0], cfg) {
			list, opts.Words = opts.Words[0], opts.Words[1:]
		}
		if list == "" {
			list = "all"
		}
		opts.ToolOff = tools.ParseToolList(append(opts.ToolOff, list))
	default:
		return cmdutil.FlagErrorf("--tools takes no value (list), off [a,b] or reset, got %q", v)
	}
	return nil
}

// isToolList reports whether w reads as tool names rather than the first
// word of a question: "all", a comma list, a name with an underscore (all
// built-in tools have one) or a configured [tool.NAME].
func isToolList(w string, cfg *config.Config) bool {
	if !toolListRe.MatchString(w) {
		return false
	}
	if w == "all" || strings.ContainsAny(w, "_,") {
		return true
	}
	_, ok := cfg.Tool[w]
	return ok
}
