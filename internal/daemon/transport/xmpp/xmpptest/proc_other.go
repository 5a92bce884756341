//go:build !unix

package xmpptest

import (
	"os"
	"syscall"
)

// startAttrs has nothing to set where there are no process groups.
func startAttrs() *syscall.SysProcAttr { return nil }

// signalGroup can only kill prosody itself here.
func signalGroup(p *os.Process, _ bool) { _ = p.Kill() }

// pauseGroup cannot stop a process here: tests that pause fail.
func pauseGroup(*os.Process, bool) {}
