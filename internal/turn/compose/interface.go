package compose

import (
	"context"
	"fmt"
	"strings"

	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
)

// The plain-query helper (asky-behavior.md §5.1 step 3, §4.4): with
// general.interface_model set, a standard (not research, not lean) turn
// first asks that model, in one small JSON call, whether the shortlist
// should run, which web tools the answer needs (full, search_only, off),
// optionally for context to add to the question (only with
// interface_model_plain_query_prompt_enrichment_enabled) and for a
// durable fact about the user to save. An explicit --shortlist (or the
// session's) still wins; a failing helper changes nothing.

const plainQuerySystem = `You tune how an assistant answers one question. Decide whether a web search shortlist helps, which web tools the answer needs, whether a short piece of context would help, and whether the question states a durable fact about the user.
Prefer the fastest answer: when the user does not ask for details, prefer web_tools_mode "search_only" (search snippets, no page reading) or "off" (no web at all, e.g. for general knowledge or chit-chat).

Reply with ONLY a JSON object:
{"shortlist_enabled": true|false,
 "web_tools_mode": "full" | "search_only" | "off",
 "prompt_enrichment": "short context to add, or empty; never repeat the question",
 "memory_action": {"scope": "global", "memory": "the fact", "tags": ["tag"]} or null,
 "reason": "a few words"}
memory_action is only for lasting facts or preferences the user states about themselves.`

// helperPlan is the helper's JSON reply.
type helperPlan struct {
	ShortlistEnabled *bool  `json:"shortlist_enabled"`
	WebToolsMode     string `json:"web_tools_mode"`
	PromptEnrichment string `json:"prompt_enrichment"`
	MemoryAction     *struct {
		Scope  string   `json:"scope"`
		Memory string   `json:"memory"`
		Tags   []string `json:"tags"`
	} `json:"memory_action"`
	Reason string `json:"reason"`
}

// interfaceExtension adds the helper's preloader, first of all so its
// choices reach the later stages.
func interfaceExtension(_ context.Context, x *composer, req *turn.Request, _ *tools.Registry) error {
	g := x.cfg.General
	if x.listing || g.InterfaceModel == "" || x.q.ResearchSet || req.Lean ||
		(g.InterfacePlainQueryEnabled != nil && !*g.InterfacePlainQueryEnabled) {
		return nil
	}
	req.Preloaders = append(req.Preloaders, turn.PreloaderFunc(x.plainQueryHelper))
	return nil
}

func (x *composer) plainQueryHelper(ctx context.Context, req *turn.Request, emit func(turn.Event)) error {
	alias := x.cfg.General.InterfaceModel
	emit(turn.Event{Kind: turn.EventStatus, Text: "planning with " + alias})
	m, c, err := x.model(ctx, alias)
	if err != nil {
		emit(turn.Event{Kind: turn.EventNotice, Text: fmt.Sprintf("general.interface_model %q: %v; answering without the helper", alias, err)})
		return nil
	}
	var plan helperPlan
	if err := askModelJSON(ctx, m, c, orPrompt(x.cfg, "plain_query_interface_system", plainQuerySystem), req.Query, 300, &plan); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		emit(turn.Event{Kind: turn.EventDebug, Text: "plain-query helper failed (" + err.Error() + "); answering without it"})
		return nil
	}
	emit(turn.Event{Kind: turn.EventDebug, Text: fmt.Sprintf("plain-query helper: shortlist=%v web_tools_mode=%q reason=%q",
		plan.ShortlistEnabled != nil && *plan.ShortlistEnabled, plan.WebToolsMode, plan.Reason)})
	x.helperShortlist = plan.ShortlistEnabled
	if req.Tools != nil {
		switch strings.ToLower(strings.TrimSpace(plan.WebToolsMode)) {
		case "search_only":
			req.Tools.Remove(tools.GetURLContentName, tools.GetURLDetailsName)
		case "off":
			req.Tools.Remove(tools.WebToolNames...)
		}
	}
	if e := strings.TrimSpace(plan.PromptEnrichment); e != "" && x.cfg.General.InterfacePromptEnrichmentEnabled {
		req.Input = strings.TrimSpace(req.Input + "\n\n[Helper Context]\n" + e)
	}
	if a := plan.MemoryAction; a != nil && strings.TrimSpace(a.Memory) != "" && x.mem != nil && x.cfg.Memory.Enabled {
		if res, err := x.mem.Save(ctx, strings.TrimSpace(a.Memory), a.Tags, 0); err != nil {
			emit(turn.Event{Kind: turn.EventNotice, Text: "the helper's memory was not saved: " + err.Error()})
		} else if !res.Unconfirmed {
			emit(turn.Event{Kind: turn.EventNotice, Text: fmt.Sprintf("New memory: %s (#%d)", strings.TrimSpace(a.Memory), res.ID)})
		}
	}
	return nil
}

const preloadPolicySystem = `You classify a research question asked over a preloaded local document corpus: does answering it need a web search, or only the local documents?
Reply with ONLY a JSON object: {"shortlist_enabled": true|false, "intent": "web" | "local" | "ambiguous", "reason": "a few words"}.
shortlist_enabled is true only when the question needs information unlikely to be in the documents (latest news, current events, outside URLs). When it mentions "these documents" or "the files", or you are unsure, answer false.`

// askIntent settles an ambiguous research question over a local corpus
// with the interface model (asky-behavior.md §5.8 policy engine); nil
// without one, and ok=false when the call fails, which leaves the
// shortlist off.
func (x *composer) askIntent(ctx context.Context, emit func(turn.Event)) func(string) (bool, bool) {
	alias := x.cfg.General.InterfaceModel
	if alias == "" {
		return nil
	}
	return func(query string) (bool, bool) {
		m, c, err := x.model(ctx, alias)
		if err != nil {
			emit(turn.Event{Kind: turn.EventDebug, Text: fmt.Sprintf("general.interface_model %q: %v", alias, err)})
			return false, false
		}
		var v struct {
			ShortlistEnabled *bool `json:"shortlist_enabled"`
		}
		if err := askModelJSON(ctx, m, c, orPrompt(x.cfg, "preload_policy_system", preloadPolicySystem), query, 200, &v); err != nil || v.ShortlistEnabled == nil {
			emit(turn.Event{Kind: turn.EventDebug, Text: "preload policy: no decision from the interface model"})
			return false, false
		}
		return *v.ShortlistEnabled, true
	}
}
