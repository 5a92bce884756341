package xmpptest

import "syscall"

// setPdeathsig makes a test binary killed by its timeout take prosody
// with it.
func setPdeathsig(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
