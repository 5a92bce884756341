package compose

import (
	"strings"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
)

// The original's prompts.toml keys ([prompts] in the config) that replace
// parts of asky's prompts. An existing asky config directory keeps its
// customised prompts: system_prefix, search_suffix and system_suffix shape
// the system prompt, graceful_exit the final call after the turn limit,
// research_system and research_retrieval_only_guidance the research-mode
// guidance, summarize_page the page summaries, and
// [prompts.tool_overrides.NAME] a tool's description and guideline.
const (
	promptSystemPrefix      = "system_prefix"
	promptSearchSuffix      = "search_suffix"
	promptSystemSuffix      = "system_suffix"
	promptGracefulExit      = "graceful_exit"
	promptResearchSystem    = "research_system"
	promptRetrievalGuidance = "research_retrieval_only_guidance"
	promptSummarizePage     = "summarize_page"
	promptToolOverrides     = "tool_overrides"
)

// researchGuidance is the research-mode workflow (asky-behavior.md §4.6
// research_system) for the web tools of this port.
const researchGuidance = `Research mode: investigate systematically.
1. Recall: call query_research_memory first; build on findings saved earlier in this research session.
2. Discover: web_search for sources, then extract_links (with a query) on promising pages to see what they link to.
3. Evaluate: prefer primary and authoritative sources and high-relevance links; skip navigation and ads.
4. Skim: get_link_summaries on candidate pages before reading any in full.
5. Read: get_url_content on the pages worth it; get_relevant_content with a focused query for preloaded corpus sources.
6. Remember: save_finding for each key fact with its source URL and tags (save_memory is only for lasting facts about the user).
7. Verify: before answering, call query_research_memory with the refined question and ground every major claim in saved findings or retrieved text.
8. Iterate until the question is answered, then answer with citations.
Be economical: skim before reading, read only what the question needs.`

// promptText is the [prompts] value of key, "" when unset or not text.
func promptText(cfg *config.Config, key string) string {
	s, _ := cfg.Prompts[key].(string)
	return strings.TrimSpace(s)
}

// promptOverrides are the engine's share of [prompts].
func promptOverrides(cfg *config.Config) turn.PromptOverrides {
	var suffix []string
	for _, k := range []string{promptSearchSuffix, promptSystemSuffix} {
		if s := promptText(cfg, k); s != "" {
			suffix = append(suffix, s)
		}
	}
	return turn.PromptOverrides{
		SystemPrefix: promptText(cfg, promptSystemPrefix),
		SystemSuffix: strings.Join(suffix, "\n\n"),
		GracefulExit: promptText(cfg, promptGracefulExit),
	}
}

// orPrompt is the [prompts] value of key, else def.
func orPrompt(cfg *config.Config, key, def string) string {
	if s := promptText(cfg, key); s != "" {
		return s
	}
	return def
}

// applyToolOverrides replaces the description and guideline of the tools
// named under [prompts.tool_overrides]. The tools are shared between
// turns, so an overridden one is a copy.
func applyToolOverrides(cfg *config.Config, reg *tools.Registry) {
	ov, _ := cfg.Prompts[promptToolOverrides].(map[string]any)
	for name, v := range ov {
		fields, _ := v.(map[string]any)
		t, ok := reg.Get(name)
		if !ok || len(fields) == 0 {
			continue
		}
		c := *t
		if d, _ := fields["description"].(string); strings.TrimSpace(d) != "" {
			c.Description = strings.TrimSpace(d)
		}
		if g, _ := fields["system_prompt_guideline"].(string); strings.TrimSpace(g) != "" {
			c.Guideline = strings.TrimSpace(g)
		}
		reg.Add(&c)
	}
}
