//go:build !linux

package termbg

import (
	"os"
	"time"

	"github.com/muesli/termenv"
)

// askDark asks through termenv where no bounded probe is written (it
// waits up to 5 s per byte on terminals that do not answer).
func askDark(f *os.File, _ time.Duration) (dark, ok bool) {
	return termenv.NewOutput(f).HasDarkBackground(), true
}
