package interp

import (
	"strings"
	"sync"

	"github.com/gnnlab/gnnlab/interp/symbols"
	yaegi "github.com/traefik/yaegi/interp"
	"github.com/traefik/yaegi/stdlib"
)

// The standard library in cells.
//
// yaegi's tables (github.com/traefik/yaegi/stdlib) were extracted from Go
// 1.22: what was added since (strings.Lines, sync/atomic.AndInt32,
// math/rand/v2.Uint, os.Root, crypto/sha3, ...) is missing from them, and
// they leave out os/exec. interp/symbols extracts every importable
// standard package of its stdlib.txt from the toolchain that builds
// gnnlab; those tables replace yaegi's package by package. yaegi's
// package is still linked for its MapTypes (the interfaces that fmt and
// encoding/json look for in interpreted values).

// symbolTables returns the standard library tables (yaegi's, with the
// packages that interp/symbols extracts replaced) and the gnnlab tables,
// each for one Interpreter.Use. The standard tables must go through one
// Use: yaegi redirects fmt, log and os to the interpreter's streams
// (fixStdlib) when a Use holds "fmt/fmt".
var symbolTables = sync.OnceValues(func() (std, gnnlab yaegi.Exports) {
	std = yaegi.Exports{}
	gnnlab = yaegi.Exports{}
	for k, v := range stdlib.Symbols {
		std[k] = v
	}
	for k, v := range symbols.Symbols {
		if isStdKey(k) {
			std[k] = v
		} else {
			gnnlab[k] = v
		}
	}
	return std, gnnlab
})

// isStdKey reports whether a table key ("importpath/name") names a
// standard library package: its first path element has no dot.
func isStdKey(k string) bool {
	first, _, _ := strings.Cut(k, "/")
	return !strings.Contains(first, ".")
}
