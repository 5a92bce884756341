// Package memory implements `asky memory`.
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
			Memories are short facts about you that asky recalls into later answers. Save them with memory add, or let the model save them with its save_memory tool.
		`),
		Example: heredoc.Doc(`
			$ asky memory add "I prefer answers with code in Go"
			$ asky memory list
			$ asky memory delete 3
		`),
	}
	cmd.AddCommand(
		cmdutil.Pending("list", "List memories"),
		cmdutil.Pending("add <text>", "Save a memory"),
		cmdutil.Pending("delete <id>", "Delete a memory"),
		cmdutil.Pending("clear", "Delete all memories"),
		cmdutil.Pending("search <text>", "Find memories similar to text"),
	)
	return cmdutil.StrictGroup(cmd)
}
