//go:build windows

package supervisor

import (
	"errors"
	"os"
	"syscall"
)

// errNoWorker is why a worker cannot start on Windows: it reads requests
// on file descriptor 3 and writes events on 4, and os/exec passes a
// Windows process no files beyond stdin, stdout and stderr.
var errNoWorker = errors.New("worker: not supported on Windows: the worker process talks to the kernel over inherited file descriptors 3 and 4, which Windows processes do not get")

// canStart reports whether a worker can start on this system.
func canStart() error { return errNoWorker }

// sysProcAttr gives the worker a process group of its own, so that a
// Ctrl-C in the kernel's console does not reach it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// killGroup kills the worker (Windows has no process groups to signal:
// the cell's own children are left running).
func killGroup(p *os.Process) { _ = p.Kill() }
