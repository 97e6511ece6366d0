// Package inspect documents the compiled packages that cells import, for
// completion, Shift-Tab and name?: the index of the preloaded packages'
// symbol tables (Packages, by import path and by name), a symbol's
// signature, doc and first runnable example (SymbolDetail; with name??
// its source, read from the package's files where the binary was built),
// a method of a session variable of a compiled type (MethodDetail), a
// package's doc (PackageDoc), and the text scanning both need (IdentAt,
// CallOpen). Docs of gnnlab's packages come from interp/symbols' generated
// tables, those of the standard library from its Go sources, both
// rendered by interp/internal/sigdoc. interp/internal/complete answers a
// session's requests with it, and interp's type checker and modules look
// packages up in its index; it knows nothing of a session.
package inspect
