// Package history implements `asky history`: list, show, delete, search and
// browse past turns.
package history

import (
	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
)

// NewCmdHistory builds the history group.
func NewCmdHistory(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "history <command>",
		Short:   "List, show, search and delete past answers",
		Aliases: []string{"h"},
		Long: heredoc.Doc(`
			Every question and answer is kept in the local history. History ids
			are shown by ` + "`history list`" + `; selectors accept an id (42), the N-th
			most recent turn (~1), a range (10-15, ~1-~3) or a list (3,7,~2).
			zsh (and bash for ~0) expand ~N as a directory: quote it, '~1'.
		`),
		Example: heredoc.Doc(`
			$ asky history list 20
			$ asky history show ~1
			$ asky history delete 10-15
		`),
	}
	cmd.AddCommand(
		NewCmdList(f, nil),
		NewCmdShow(f, nil),
		NewCmdDelete(f, nil),
		NewCmdSearch(f, nil),
		NewCmdBrowse(f, nil),
	)
	return cmdutil.StrictGroup(cmd)
}
