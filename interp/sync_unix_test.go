//go:build unix

package interp

import "syscall"

// syncFiles writes the system's dirty file pages to disk (memory).
func syncFiles() { syscall.Sync() }
