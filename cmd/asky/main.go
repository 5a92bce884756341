// Command asky is a terminal-first research assistant.
package main

import (
	"os"

	"github.com/askygo/asky/internal/cli"
	// Imported for its init: it must run before bubbletea's (see package doc).
	_ "github.com/askygo/asky/internal/termbg"
)

func main() {
	os.Exit(cli.Main())
}
