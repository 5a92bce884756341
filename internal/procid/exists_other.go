//go:build !unix && !windows

package procid

// exists cannot tell here, so a process is assumed to be running.
func exists(int) bool { return true }
