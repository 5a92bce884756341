//go:build !windows

package procid

import (
	"fmt"
	"os"
	"strings"
)

// Start reads the start time of pid from /proc (Linux; Windows reads it in
// proc_windows.go); elsewhere it returns "" and PID reuse is not detected.
func Start(pid int) string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) may contain spaces; fields after its
	// closing parenthesis are fixed. starttime is field 22.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}
