// Package complete answers a session's completion and inspection
// requests (Tab and Shift-Tab in JupyterLab, name? in the REPL) from
// what the session holds: its globals, its cells' imports and
// declarations (a Session), and the compiled packages' symbols and docs
// (package inspect). Package interp's Session.Complete and
// Session.Inspect call Complete and Inspect; the package does not import
// interp.
//
// # Completion
//
// Complete offers Go keywords, inspect.Builtins, session variables,
// functions and types, imported package names, the members of a package
// (fmt.Pri) and the fields and methods of a session variable (x.) that a
// cell may use: of a compiled type only the exported ones (a cell that
// selects an unexported one gets Go's compile error, not yaegi's reflect
// panic), of an interpreted type all of them, by the names the cell
// wrote (yaegi stores field x of an interpreted struct as Xx), with the
// methods of the declared types that have those fields.
//
// # Inspection
//
// Inspect shows the declaration and doc comment of the user's
// declarations (printed by sigdoc as compiled ones are), of the gnnlab
// packages and of the standard library (package inspect); at a detail
// level above 0 (name??) it adds the declaration's source. Inside a
// call's arguments it documents the callee.
//
// BUG(complete): the methods of a value of an interpreted struct type are
// found by the words of the session's type declarations (every type whose
// text names all the value's fields), so two types with the same field
// names offer each other's methods.
package complete
