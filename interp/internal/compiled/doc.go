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
// <checkout>`; each cell is a package main in it, built as a plugin with
// -ldflags=-w (no DWARF: 40% of the link) and loaded; its Symbols
// variable (a map[string]any) holds the cell's values by their yaegi
// names, which become the yaegi table of the cell. Package paths hold the
// session's id, because a plugin is named after its package path and a
// process cannot load two plugins of one name.
//
// The builder runs the compiler and the linker itself (direct.go), as
// go build -x shows them, with an import configuration it keeps for the
// session: the go command would spend a third of a later cell's build
// loading the module graph and hashing every dependency, the same for
// each cell. The archives come from go list -buildmode=plugin -export
// (which builds what the go command's cache lacks), once per newly
// imported package. A trimmed cache is listed again; a linker failure,
// or host flags it does not reproduce (-trimpath, -gcflags, CGO_LDFLAGS),
// leave the builds to go build. Warm builds (without loading) a plugin
// that imports the standard packages cells use most and all of gnnlib
// and viz, which fills the go command's cache with them compiled in
// plugin mode (gnnlab install runs it).
//
// # What compiles
//
// Tier.Compile decides per cell: its declarations compile when they use
// only imports, predeclared names, each other and declarations of earlier
// compiled cells that can be declared again in the new plugin (a plugin
// cannot import another): functions and constants always, types and
// variables only while no statement has run since they were compiled.
// A //go:embed directive on a string or []byte variable that names a
// file of the working directory compiles (embed.go): the file is copied
// into the cell's package, and the compiler gets an embed configuration
// as go build would write it. The reasons a cell stays interpreted are
// in doc.go of package interp.
//
// BUG(compiled): Each compiled cell is a plugin (1.9 MB for a function
// that calls no package, 2.9 MB for one that uses reflect) that stays
// mapped: plugins cannot be unloaded. A plugin links its own copy of
// every package it uses (the runtime always; reflect and fmt where the
// cell uses them: its Symbols are plain values, which the host turns
// into reflect.Values), and loading it touches most of its pages. On
// Linux (5.4 or later) the session then has the kernel drop the pages of
// its read-only mappings (Plugin.DropPages, MADV_PAGEOUT): they fault
// back in from the file (removed, but kept by the mapping) when they run
// again. What stays is the process's own memory: the relocated type data
// (132 KiB a plugin that links only the runtime, 202 KiB with reflect),
// the runtime's tables and the interpreter's records, and the pages of
// earlier plugins' files that each load reads again: +437 MiB resident,
// +318 MiB private, over 1,000 redefinitions of a function that links no
// reflect (make bench-redefs; +505 and +422 when every plugin linked
// reflect; a function that calls fmt.Sprint measured +133 MiB resident
// at 200 redefinitions, about 0.65 MiB a cell). Elsewhere the file's pages stay resident as long as the
// kernel leaves them (about 2 MiB a cell on Linux without the advice).
// The file is removed once loaded, and the session's module is made in the user's
// cache directory where the temporary directory is a tmpfs, whose pages
// would be memory that cannot be dropped. The session stops compiling
// after 160 of them (package interp) rather than grow without bound.
//
// BUG(compiled): Packages of modules that %go get added, where the
// interpreter runs them from source, compile only in a program (a cell
// with func main): elsewhere a compiled declaration would hand the
// interpreted package values of other types, so such cells run
// interpreted. The cells' module then requires what the session's module
// requires (Builder.requireModules). A module that the binary links stays
// at the binary's version, as minimal version selection keeps it where
// the session's modules require that version or an older one
// (github.com/samber/lo v1.53.0 requires golang.org/x/text v0.22.0, the
// binary links v0.28.0); a newer requirement is refused with a notice
// naming both versions.
//
// A package that the interpreter refuses (Cell.CompiledOnly) compiles
// outside a program too: the interpreter has it compiled, from a package
// plugin (Tier.Package: its exported names as a yaegi table, read from
// the package's export data; every later plugin links the same build, so
// its types are the same in the interpreter and in compiled cells), and
// the calls of its generic functions in a cell's statements come from
// plugins of instantiations (Tier.Instances). Where the package plugin did
// not build, the cell's import of the package is blanked in the
// interpreter's text, unless the cell's statements use it (the
// interpreter then refuses the import, saying why). Package plugins and
// instantiations are built without the interrupt checks that compiled
// cells' code has, so those checks do not stop a long call into them.
// A package plugin holds the package
// as it was at its first import: another version that %go get takes
// later is used after %restart.
package compiled
