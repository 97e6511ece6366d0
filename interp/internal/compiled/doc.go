// Package compiled is the session's compiled tier: it builds a cell's
// declarations with the Go toolchain into a Go plugin, loads it into the
// process and hands the session the text that binds the cell's names to
// the plugin's symbols (wrapper functions, type aliases, qualified
// variables), so that the interpreter calls compiled code at native speed.
//
// # Environment
//
// Detect finds what a plugin for this process needs: the go command of the
// toolchain that built the binary, the checkout the binary was built from
// (the directory this package was compiled from, or $GNNLAB_CHECKOUT) and
// the host's build flags from its build information (-race, -tags,
// -trimpath, -gcflags, CGO_ENABLED, GOAMD64): a plugin must be built like
// its host or plugin.Open refuses it. Its error is a *Reason whose text is
// the one-line notice the session prints.
//
// # Building
//
// A Builder owns a module in a temporary directory whose go.mod has the
// checkout's requirements and `replace github.com/gnnlab/gnnlab =>
// <checkout>`; each cell is a package main in it, built with
// -buildmode=plugin -ldflags=-w (no DWARF: 40% of the link) and loaded;
// its Symbols variable is the yaegi table of the cell. Package paths hold
// the session's id, because the go command names a plugin after its
// package path and a process cannot load two plugins of one name. Warm
// builds (without loading) a plugin that imports the standard packages
// cells use most and all of gnnlib and viz, which fills the go command's
// cache with them compiled in plugin mode (gnnlab install runs it).
//
// # What compiles
//
// Tier.Compile decides per cell: its declarations compile when they use
// only imports, predeclared names, each other and declarations of earlier
// compiled cells that can be declared again in the new plugin (a plugin
// cannot import another): functions and constants always, types and
// variables only while no statement has run since they were compiled.
// The reasons a cell stays interpreted are in doc.go of package interp.
//
// BUG(compiled): Each compiled cell is a plugin of about 5 MB that stays
// mapped (about 2.5 MiB resident): plugins cannot be unloaded. The
// session stops compiling after 160 of them (package interp) rather than
// grow without bound; a thousand redefinitions would hold 2.5 GiB.
//
// BUG(compiled): Modules added by %go get are not in the cells' module:
// a cell that imports one runs interpreted (its build fails).
package compiled
