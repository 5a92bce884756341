package daemon

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// reTOMLBlock finds a ```toml fenced block (the original's inline
// session override syntax).
var reTOMLBlock = regexp.MustCompile("(?s)```toml[^\n]*\n(.*?)```")

// parseOverride reads an inline TOML block: only default_model is
// applied per chat (top level or under [general]); anything else is an
// error and nothing is applied.
func parseOverride(text string) (model string, found bool, err error) {
	m := reTOMLBlock.FindStringSubmatch(text)
	if m == nil {
		if strings.Contains(text, "```toml") {
			return "", true, fmt.Errorf("the ```toml block is not closed; nothing was applied")
		}
		return "", false, nil
	}
	var tree map[string]any
	if _, err := toml.Decode(m[1], &tree); err != nil {
		return "", true, fmt.Errorf("bad TOML, nothing was applied: %v", err)
	}
	if g, ok := tree["general"].(map[string]any); ok {
		delete(tree, "general")
		for k, v := range g {
			if _, dup := tree[k]; dup {
				return "", true, fmt.Errorf("%s is set twice; nothing was applied", k)
			}
			tree[k] = v
		}
	}
	for k, v := range tree {
		switch k {
		case "default_model":
			s, ok := v.(string)
			if !ok || strings.TrimSpace(s) == "" {
				return "", true, fmt.Errorf("default_model must be a model alias; nothing was applied")
			}
			model = strings.TrimSpace(s)
		case "summarization_model", "user_prompts":
			return "", true, fmt.Errorf("%s overrides over chat are not supported yet by this version; nothing was applied", k)
		default:
			return "", true, fmt.Errorf("%s cannot be overridden over chat (only default_model); nothing was applied", k)
		}
	}
	if model == "" {
		return "", true, fmt.Errorf("the block sets nothing; nothing was applied")
	}
	return model, true, nil
}
