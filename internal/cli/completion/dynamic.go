package completion

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	sess "github.com/askygo/asky/internal/session"
)

// RegisterDynamic adds completion of values that live in the config and
// the database: model aliases (-m), session names (-rs, -ps, --print-session)
// and recent history ids (-c, history show/delete). It is called once on
// the finished command tree; the values are read only when the shell asks.
func RegisterDynamic(root *cobra.Command, f *cmdutil.Factory) {
	flags := map[string]cobra.CompletionFunc{
		"model":          Models(f),
		"resume-session": Sessions(f),
		"print-session":  Sessions(f),
		"continue-chat":  HistoryIDs(f),
		"print-answer":   HistoryIDs(f),
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for name, fn := range flags {
			if c.Flags().Lookup(name) != nil {
				if _, ok := c.GetFlagCompletionFunc(name); !ok {
					_ = c.RegisterFlagCompletionFunc(name, fn)
				}
			}
		}
		if p := c.Parent(); p != nil && p.Name() == "history" && (c.Name() == "show" || c.Name() == "delete") && c.ValidArgsFunction == nil {
			c.ValidArgsFunction = HistoryIDs(f)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// Models completes model aliases from the config.
func Models(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		cfg, err := f.Config()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for alias, m := range cfg.Models {
			if strings.HasPrefix(alias, toComplete) {
				out = append(out, cobra.CompletionWithDesc(alias, m.ID))
			}
		}
		sort.Strings(out)
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// Sessions completes session names (and ids of unnamed sessions) for
// selector arguments and flags.
func Sessions(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		st, err := f.Store()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		list, err := st.ListSessions(c.Context(), 200)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, s := range list {
			id := strconv.FormatInt(s.ID, 10)
			if !strings.HasPrefix(s.Name, toComplete) && !strings.HasPrefix(id, toComplete) {
				continue
			}
			if s.Name != "" {
				out = append(out, cobra.CompletionWithDesc(s.Name, fmt.Sprintf("session %d, %s", s.ID, sess.Turns(s.Turns))))
			} else {
				out = append(out, cobra.CompletionWithDesc(id, "unnamed session, "+sess.Turns(s.Turns)))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// HistoryIDs completes the ids of the 20 most recent turns, described by
// their question.
func HistoryIDs(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		st, err := f.Store()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		turns, err := st.ListTurns(c.Context(), 20)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, t := range turns {
			id := strconv.FormatInt(t.ID, 10)
			if strings.HasPrefix(id, toComplete) {
				q := strings.Join(strings.Fields(t.Query), " ")
				if r := []rune(q); len(r) > 50 {
					q = string(r[:49]) + "…"
				}
				out = append(out, cobra.CompletionWithDesc(id, q))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}
