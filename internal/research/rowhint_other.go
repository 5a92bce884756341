//go:build !linux

package research

import "os"

// willNeedFile has no portable form here: rows are read when needed.
func willNeedFile(*os.File, int64, int64) {}
