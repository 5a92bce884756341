package compose

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/memory"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn"
)

// FastPathModel is the model name a fast-path turn carries in history
// and --json: no model answered it.
const FastPathModel = "fast-path"

// fastPath answers the question locally when it is one of the fast-path
// phrases and [general] fast_paths is on: no model call, no tokens. The
// turn is saved to history like any other. ok is false when the question
// is for the model.
func (x *composer) fastPath(ctx context.Context, st *store.Store) (*turn.Result, bool, error) {
	q := x.q
	if !x.cfg.General.FastPaths || !x.cfg.Memory.Enabled || q.Input != "" || len(q.ContinueIDs) > 0 {
		return nil, false, nil
	}
	if _, _, trig := memory.StripTrigger(q.Question, x.cfg.Memory.GlobalTriggers); trig {
		// "remember globally: …" keeps its meaning: save, then ask.
		return nil, false, nil
	}
	fp, ok := matchFastPath(q.Question)
	if !ok {
		return nil, false, nil
	}
	t0 := time.Now()
	mem := &memoryTurn{x: x, cfg: x.cfg.Memory, embedding: x.cfg.Research.Embedding}
	svc, err := mem.service()
	if err != nil {
		return nil, true, err
	}
	// A remote question (a chat, the HTTP API) saves into its own session,
	// or, without one, holds the global memory for the owner's yes: any
	// allowed chat user must not write what every later question of the
	// owner is told about "the user".
	var sid int64
	if q.Remote && q.Session != nil {
		sid = q.Session.ID
	}
	ctx = x.guardGlobal(ctx, sid)
	var answer string
	switch fp.Kind {
	case "name":
		answer, err = fastName(ctx, st, svc, fp.Arg, sid)
	case "remember":
		answer, err = fastSave(ctx, svc, fp.Arg, nil, "", sid)
	case "forget":
		answer, err = x.fastForget(ctx, st, fp.Arg)
	case "recall":
		answer, err = x.fastRecall(ctx, st)
	}
	if err != nil {
		return nil, true, err
	}
	x.emitf(turn.EventDebug, "answered by the %q fast path, without a model call ([general] fast_paths = false turns this off)", fp.Kind)
	res := &turn.Result{Answer: answer, Model: FastPathModel, Elapsed: time.Since(t0)}
	t := &store.Turn{Model: FastPathModel, Query: q.Question, Answer: answer, ElapsedMS: res.Elapsed.Milliseconds(),
		Messages: []store.Message{{Role: string(llm.RoleUser), Content: q.Question}, {Role: string(llm.RoleAssistant), Content: answer}}}
	if q.Session != nil {
		t.SessionID, res.SessionID = q.Session.ID, q.Session.ID
	}
	if res.HistoryID, err = st.SaveTurn(ctx, t); err != nil {
		return nil, true, err
	}
	return res, true, nil
}

func (x *composer) emitf(kind turn.EventKind, format string, args ...any) {
	if x.emit != nil {
		x.emit(turn.Event{Kind: kind, Text: fmt.Sprintf(format, args...)})
	}
}

// fastSave saves a memory of session sid, 0 = global (deduplicated as
// save_memory does).
func fastSave(ctx context.Context, svc *memory.Service, text string, tags []string, done string, sid int64) (string, error) {
	r, err := svc.Save(ctx, text, tags, sid)
	if err != nil {
		return "", err
	}
	if done == "" {
		done = "Remembered: " + text
	}
	scope := ""
	switch {
	case r.Unconfirmed:
		return fmt.Sprintf("%s — held until the owner confirms it on the machine (asky memory confirm %d); until then it is not used.", done, r.ID), nil
	case sid != 0:
		scope = ", this chat only"
	}
	if r.Updated {
		return fmt.Sprintf("%s (updated memory %d%s)", done, r.ID, scope), nil
	}
	return fmt.Sprintf("%s (memory %d%s)", done, r.ID, scope), nil
}

// nameFact is the memory the name fast path saves.
const nameFact = "The user's name is "

// fastName saves the user's name as a memory of session sid (0 =
// global), rewriting the one an earlier "call me …" saved in that scope:
// after "call me Bob" then "call me Al" asky must not keep both names to
// choose from.
func fastName(ctx context.Context, st *store.Store, svc *memory.Service, name string, sid int64) (string, error) {
	text, done := nameFact+name+"; call them "+name+".", "OK, I'll call you "+name+"."
	visible, err := st.ListMemories(ctx, store.MemoryScope{SessionID: sid})
	if err != nil {
		return "", err
	}
	var names []*store.Memory
	for _, m := range visible {
		if m.SessionID == sid && !m.Unconfirmed && slices.Contains(m.Tags, "name") && strings.HasPrefix(m.Text, nameFact) {
			names = append(names, m)
		}
	}
	if len(names) == 0 || memory.HeldForOwner(ctx) {
		return fastSave(ctx, svc, text, []string{"name"}, done, sid)
	}
	if err := svc.Update(ctx, names[0], text, names[0].Tags); err != nil {
		return "", err
	}
	// Earlier versions added a memory per name: keep one.
	var stale []int64
	for _, m := range names[1:] {
		stale = append(stale, m.ID)
	}
	if len(stale) > 0 {
		if _, err := st.DeleteMemories(ctx, stale); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%s (updated memory %d)", done, names[0].ID), nil
}

// visibleMemories are the global memories and the session's.
func (x *composer) visibleMemories(ctx context.Context, st *store.Store) ([]*store.Memory, error) {
	scope := store.MemoryScope{}
	if x.q.Session != nil {
		scope.SessionID = x.q.Session.ID
	}
	return st.ListMemories(ctx, scope)
}

// fastForget deletes the memories containing text. Several matches need a
// yes from the user; without a way to ask, they are listed and kept.
func (x *composer) fastForget(ctx context.Context, st *store.Store, text string) (string, error) {
	all, err := x.visibleMemories(ctx, st)
	if err != nil {
		return "", err
	}
	var hits []*store.Memory
	needle := strings.ToLower(text)
	for _, m := range all {
		// "forget my name" means the memory "call me …" saved.
		isName := needle == "my name" && slices.Contains(m.Tags, "name") && strings.HasPrefix(m.Text, nameFact)
		if isName || strings.Contains(strings.ToLower(m.Text), needle) {
			hits = append(hits, m)
		}
	}
	if len(hits) == 0 {
		return fmt.Sprintf("I don't remember anything matching %q.", text), nil
	}
	list := memoryLines(hits)
	if x.q.Remote {
		// The remote policy keeps deletes on the machine (`memory delete`
		// is refused over chat); "forget …" must not be the way around it.
		return fmt.Sprintf("Forgetting is not available to remote questions; on the machine run `asky memory delete ID`. Matching:\n%s", list), nil
	}
	if len(hits) > 1 || x.q.Confirm != nil {
		if x.q.Confirm == nil {
			return fmt.Sprintf("%d memories match %q; say it more precisely, or delete by id with `asky memory delete ID`:\n%s", len(hits), text, list), nil
		}
		if !x.q.Confirm(fmt.Sprintf("Forget %d memor%s?\n%s", len(hits), plural(len(hits), "y", "ies"), list)) {
			return "Kept: nothing was forgotten.", nil
		}
	}
	ids := make([]int64, len(hits))
	for i, m := range hits {
		ids[i] = m.ID
	}
	gone, err := st.DeleteMemories(ctx, ids)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Forgotten (%d):\n%s", len(gone), list), nil
}

// fastRecall lists what asky remembers.
func (x *composer) fastRecall(ctx context.Context, st *store.Store) (string, error) {
	all, err := x.visibleMemories(ctx, st)
	if err != nil {
		return "", err
	}
	if len(all) == 0 {
		return `I don't remember anything about you yet. Tell me with "remember that …".`, nil
	}
	return "What I remember about you:\n" + memoryLines(all), nil
}

func memoryLines(ms []*store.Memory) string {
	var b strings.Builder
	for _, m := range ms {
		note := ""
		if m.Unconfirmed {
			note = ", unconfirmed: not used until confirmed with `asky memory confirm " + strconv.FormatInt(m.ID, 10) + "`"
		}
		fmt.Fprintf(&b, "- %s (memory %d%s)\n", memory.OneLine(m.Text, 300), m.ID, note)
	}
	return strings.TrimRight(b.String(), "\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
