package symbols

import (
	"errors"
	"os"
	"strconv"
)

// The extractor (github.com/traefik/yaegi/extract) writes these names in
// place of os.Exit and os.FindProcess, as yaegi's own stdlib package does:
// a cell must not end the worker by accident. The session replaces
// os.Exit with its own (interp/exit.go).

var errRestricted = errors.New("symbols: restricted in cells")

// osExit panics instead of exiting.
func osExit(code int) { panic("os.Exit(" + strconv.Itoa(code) + ")") }

// osFindProcess is os.FindProcess, except for the worker's own process.
func osFindProcess(pid int) (*os.Process, error) {
	if pid == os.Getpid() {
		return nil, errRestricted
	}
	return os.FindProcess(pid)
}
