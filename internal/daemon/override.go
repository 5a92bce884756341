package daemon

import (
	"context"
	"fmt"
	"io"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// reTOMLBlock finds a ```toml fenced block (the original's inline
// session override syntax).
var reTOMLBlock = regexp.MustCompile("(?s)```toml[^\n]*\n(.*?)```")

// rePromptName is a /name a prompt can be called by (userprompt's).
var rePromptName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// Override is a chat's inline TOML settings: default_model and
// summarization_model (top level or under [general]) and [user_prompts].
// Each block is applied whole or not at all; a later block wins key by
// key.
type Override struct {
	Model              string `json:"default_model,omitempty"`
	SummarizationModel string `json:"summarization_model,omitempty"`
	// Prompts add to (and replace) [user_prompts] for /name in this
	// chat's questions.
	Prompts map[string]string `json:"user_prompts,omitempty"`
}

// merge applies o over c: the keys o sets win.
func (c Override) merge(o Override) Override {
	if o.Model != "" {
		c.Model = o.Model
	}
	if o.SummarizationModel != "" {
		c.SummarizationModel = o.SummarizationModel
	}
	if len(o.Prompts) > 0 {
		p := maps.Clone(c.Prompts)
		if p == nil {
			p = map[string]string{}
		}
		maps.Copy(p, o.Prompts)
		c.Prompts = p
	}
	return c
}

// String lists what o sets, for the acknowledgement.
func (o Override) String() string {
	var parts []string
	if o.Model != "" {
		parts = append(parts, fmt.Sprintf("default_model = %q", o.Model))
	}
	if o.SummarizationModel != "" {
		parts = append(parts, fmt.Sprintf("summarization_model = %q", o.SummarizationModel))
	}
	if len(o.Prompts) > 0 {
		names := slices.Sorted(maps.Keys(o.Prompts))
		for i, n := range names {
			names[i] = "/" + n
		}
		parts = append(parts, "user_prompts "+strings.Join(names, ", "))
	}
	return strings.Join(parts, ", ")
}

// parseOverride reads an inline TOML block; anything but the keys of
// Override is an error and nothing is applied.
func parseOverride(text string) (o Override, found bool, err error) {
	m := reTOMLBlock.FindStringSubmatch(text)
	if m == nil {
		if strings.Contains(text, "```toml") {
			return o, true, fmt.Errorf("the ```toml block is not closed; nothing was applied")
		}
		return o, false, nil
	}
	o, err = overrideFromTOML(m[1])
	return o, true, err
}

// overrideFromTOML reads override settings from TOML text (an inline
// block's, or a .toml file's); anything but the keys of Override is an
// error.
func overrideFromTOML(text string) (o Override, err error) {
	var tree map[string]any
	if _, err := toml.Decode(text, &tree); err != nil {
		return o, fmt.Errorf("bad TOML, nothing was applied: %v", err)
	}
	if g, ok := tree["general"].(map[string]any); ok {
		delete(tree, "general")
		for k, v := range g {
			if _, dup := tree[k]; dup {
				return o, fmt.Errorf("%s is set twice; nothing was applied", k)
			}
			tree[k] = v
		}
	}
	alias := func(k string, v any) (string, error) {
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("%s must be a model alias; nothing was applied", k)
		}
		return strings.TrimSpace(s), nil
	}
	for k, v := range tree {
		switch k {
		case "default_model":
			if o.Model, err = alias(k, v); err != nil {
				return Override{}, err
			}
		case "summarization_model":
			if o.SummarizationModel, err = alias(k, v); err != nil {
				return Override{}, err
			}
		case "user_prompts":
			if o.Prompts, err = prompts(v); err != nil {
				return Override{}, err
			}
		default:
			return Override{}, fmt.Errorf("%s cannot be overridden over chat (only default_model, summarization_model and [user_prompts]); nothing was applied", k)
		}
	}
	if o.Model == "" && o.SummarizationModel == "" && len(o.Prompts) == 0 {
		return o, fmt.Errorf("the block sets nothing; nothing was applied")
	}
	return o, nil
}

// prompts checks a [user_prompts] table: /name = "text". A file://
// prompt is refused: a chat must not make the daemon read local files.
func prompts(v any) (map[string]string, error) {
	t, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("user_prompts must be a table of name = \"prompt\"; nothing was applied")
	}
	out := make(map[string]string, len(t))
	for name, p := range t {
		s, ok := p.(string)
		switch {
		case !rePromptName.MatchString(name):
			return nil, fmt.Errorf("user_prompts: %q is not a prompt name (letters, digits, _ . -); nothing was applied", name)
		case !ok || strings.TrimSpace(s) == "":
			return nil, fmt.Errorf("user_prompts.%s must be a non-empty string; nothing was applied", name)
		case strings.HasPrefix(strings.TrimSpace(s), "file://"):
			return nil, fmt.Errorf("user_prompts.%s: file:// prompts cannot be set over chat; nothing was applied", name)
		}
		out[name] = s
	}
	return out, nil
}

// MaxOverrideBytes bounds a settings file sent to a chat (the
// original's 256 KB).
const MaxOverrideBytes = 256 << 10

// IsOverrideURL reports a .toml file: the chat's session settings, as
// the original takes an uploaded general.toml or user.toml.
func IsOverrideURL(raw string) bool {
	return strings.EqualFold(path.Ext(uploadName(raw)), ".toml")
}

// overrideFrom downloads a .toml file (HTTPS, guarded, at most
// MaxOverrideBytes) and sets its settings for the conversation's session.
func (c *Chat) overrideFrom(ctx context.Context, conversation, raw string) (string, error) {
	resp, err := c.Uploads.get(ctx, raw, MaxOverrideBytes)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxOverrideBytes+1))
	if err != nil {
		return "", fmt.Errorf("download failed: %v", err)
	}
	if len(b) > MaxOverrideBytes {
		return "", fmt.Errorf("too large (the limit is %d KB)", MaxOverrideBytes>>10)
	}
	o, err := overrideFromTOML(string(b))
	if err != nil {
		return "", err
	}
	if err := c.setOverride(ctx, conversation, o); err != nil {
		return "", fmt.Errorf("the override was not kept: %v", err)
	}
	return fmt.Sprintf("✓ %s: override set for this chat's session: %s (/session new starts without it).", uploadName(raw), o), nil
}
