//go:build unix && !linux

package worker

import "syscall"

func setPdeathsig(*syscall.SysProcAttr) {}
