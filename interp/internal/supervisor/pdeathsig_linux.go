package supervisor

import "syscall"

// setPdeathsig makes Linux kill the worker when the kernel dies, so that a
// killed kernel leaves no orphan session behind.
func setPdeathsig(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
