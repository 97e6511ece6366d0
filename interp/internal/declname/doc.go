// Package declname names what the top-level declarations of a cell declare:
// the names a declaration defines (methods as "Type.Method") and the type
// name of a receiver. The session (interp's cell records and frames), the
// rewrite passes and the compiled tier key their records by these names, so
// that they agree on them; the package imports only go/ast, so that the
// compiled tier does not pull in the rewrite passes for them.
package declname
