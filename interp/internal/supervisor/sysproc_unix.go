//go:build unix

package supervisor

import (
	"os"
	"syscall"
)

// canStart reports whether a worker can start on this system.
func canStart() error { return nil }

// sysProcAttr puts the worker in its own process group, so that a Ctrl-C
// in the kernel's terminal reaches the kernel only (which then interrupts
// the worker itself), and so that killGroup also ends the cell's children.
func sysProcAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	setPdeathsig(a)
	return a
}

// killGroup kills the worker and every process in its group.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	_ = p.Kill()
}
