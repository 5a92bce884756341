//go:build !unix && !windows

package filelock

import (
	"errors"
	"os"
)

// errUnsupported is returned where the platform has no file locks
// (js/wasm, plan9): asky refuses to run a daemon or share a mirror there
// rather than run one without its ownership lock.
var errUnsupported = errors.New("file locks are not supported on this platform")

func lock(*os.File, bool, bool) error { return errUnsupported }

func unlock(*os.File) error { return errUnsupported }
