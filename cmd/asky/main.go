// Command asky is a terminal-first research assistant.
package main

import (
	"os"

	"github.com/askygo/asky/internal/cli"
)

func main() {
	os.Exit(cli.Main())
}
