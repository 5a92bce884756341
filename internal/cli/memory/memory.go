// Package memory implements `asky memory`: list, add, delete, confirm,
// clear and search the facts asky remembers about you.
package memory

import (
	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
)

// NewCmdMemory builds the memory group.
func NewCmdMemory(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "memory <command>",
		Short: "List and manage what asky remembers about you",
		Long: heredoc.Doc(`
			Memories are short facts about you that asky recalls into later answers:
			before each question, the few memories most similar to it are quoted
			to the model with your question (not in lean mode, -L).

			Save them with memory add, by starting a question with
			"remember globally:", or let the model save what you tell it about
			yourself with its save_memory tool. A memory saved during a session
			turn belongs to that session and is only recalled there; the others
			are global. Saving a fact that is already remembered updates it
			instead of adding a copy. What the model saves after reading a page or
			a document stays unconfirmed until you run memory confirm.

			Configure recall in the [memory] table: enabled, recall_top_k,
			recall_min_similarity, dedup_threshold, global_triggers.
		`),
		Example: heredoc.Doc(`
			$ asky memory add "I prefer answers with code in Go"
			$ asky memory list
			$ asky memory search editor
			$ asky memory delete 3
			$ asky remember globally: I live in Lisbon. What is on this weekend?
		`),
	}
	cmd.AddCommand(
		NewCmdList(f, nil),
		NewCmdAdd(f, nil),
		NewCmdDelete(f, nil),
		NewCmdConfirm(f, nil),
		NewCmdClear(f, nil),
		NewCmdSearch(f, nil),
	)
	return cmdutil.StrictGroup(cmd)
}
