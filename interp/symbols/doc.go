// Package symbols holds the yaegi symbol tables of the compiled packages
// that notebook cells can import, and a compact documentation table of the
// same packages for the session's inspection (shift-tab) requests.
//
// # Generating
//
// The tables are generated: the list of packages is packages.txt, one
// import path a line. Adding a package to the interpreter is adding its
// line there and running
//
//	go generate ./interp/symbols
//
// The generator (internal/gen) runs the extractor behind `yaegi extract`
// (github.com/traefik/yaegi/extract, the same code as `go tool yaegi
// extract`) for each package and writes one file per package, named like
// the files `yaegi extract` writes, docs_gen.go with the signatures
// and doc comments of their exported symbols, and examples_gen.go with
// the first runnable example (one with an Output comment) of each symbol
// that has one in the package's _test.go files. TestGenerated regenerates
// into a temporary folder and fails when a committed file differs
// (check-generate).
//
// The standard packages listed in stdlib.txt, every one a program can
// import except those it leaves out with a reason ("-path reason"), are
// extracted the same way, from the toolchain that runs the generator, into
// std-*.go files without docs or examples; the session uses them in place
// of yaegi's tables (github.com/traefik/yaegi/stdlib, extracted from Go
// 1.22). The generator fails when go list std has a package that
// stdlib.txt neither lists nor leaves out. Extracting them takes minutes
// (each package is type-checked from source with its dependencies), so
// the generator does it only when the hash of stdlib.txt, of the listed
// packages' sources for this platform and of the extractor's version
// differs from the one stamped in stdlib_gen.go, or with -force. restricted.go holds the os.Exit and os.FindProcess that the
// extractor substitutes, as yaegi's stdlib package does.
//
// # Limits
//
// yaegi extract skips generic functions and types and sees only the
// default build (no `cuda`-tagged files), so the API that notebooks see
// must be non-generic and the same with and without a GPU.
package symbols

//go:generate go run ./internal/gen -o .

import "reflect"

// Symbols are the extracted packages, keyed "importpath/name" as yaegi's
// Interpreter.Use expects.
var Symbols = map[string]map[string]reflect.Value{}
