//go:build unix && !linux

package supervisor

import "syscall"

func setPdeathsig(*syscall.SysProcAttr) {}
