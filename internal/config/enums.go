package config

import (
	"fmt"
	"slices"
	"strings"
)

// enumKeys are string keys with a fixed set of values. A value outside it
// would be accepted and then fail (or fall back to a default) far from the
// file that set it, so it is refused at load, naming the choices.
var enumKeys = []struct {
	key    string
	get    func(*Config) string
	values []string // "" is the default and always allowed
}{
	{"general.search_provider", func(c *Config) string { return strings.ToLower(strings.TrimSpace(c.General.SearchProvider)) },
		[]string{"duckduckgo", "ddg", "searxng", "searx", "serper", "tavily", "brave"}},
	{"session.compaction_strategy", func(c *Config) string { return c.Session.CompactionStrategy },
		[]string{"summary_concat", "llm_summary"}},
}

// validateEnums reports every enum key set to a value outside its set.
func (c *Config) validateEnums() []error {
	var errs []error
	for _, e := range enumKeys {
		v := e.get(c)
		if v == "" || slices.Contains(e.values, v) {
			continue
		}
		path := strings.Split(e.key, ".")
		errs = append(errs, &ValueError{File: c.origins[e.key], Key: e.key, Line: c.keyLine(path),
			Message: fmt.Sprintf("%q is not one of %s", v, strings.Join(e.values, ", "))})
	}
	return errs
}
