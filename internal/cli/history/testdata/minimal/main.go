// Command minimal is the yardstick for BenchmarkColdHistoryList: the least
// a Go program linking asky's required libraries (cobra, glamour,
// modernc.org/sqlite) can do to print the 20 most recent turns of an asky
// database. It lives under testdata so it is not part of the module build.
package main

import (
	"database/sql"
	"fmt"
	"os"
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/spf13/cobra"
	_ "modernc.org/sqlite"
)

func main() {
	cmd := &cobra.Command{
		Use:  "minimal DB",
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			db, err := sql.Open("sqlite", "file:"+args[0]+"?_pragma=busy_timeout(10000)")
			if err != nil {
				return err
			}
			defer db.Close()
			rows, err := db.Query(`SELECT id, created_at, model, status, query FROM turns ORDER BY id DESC LIMIT 20`)
			if err != nil {
				return err
			}
			defer rows.Close()
			var b strings.Builder
			for rows.Next() {
				var id int64
				var created, model, status, query string
				if err := rows.Scan(&id, &created, &model, &status, &query); err != nil {
					return err
				}
				fmt.Fprintf(&b, "%d\t%s\t%s\t%s\t%s\n", id, created, model, status, strings.Join(strings.Fields(query), " "))
			}
			if err := rows.Err(); err != nil {
				return err
			}
			out := b.String()
			if os.Getenv("MINIMAL_RENDER") != "" {
				// Keeps glamour genuinely used, as asky uses it on a TTY.
				if r, err := glamour.Render(out, "notty"); err == nil {
					out = r
				}
			}
			_, err = fmt.Fprint(c.OutOrStdout(), out)
			return err
		},
	}
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
