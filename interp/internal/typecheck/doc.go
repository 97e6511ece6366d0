// Package typecheck runs go/types over a cell before it is rewritten and
// evaluated. The checker is told what the session knows (Env): the
// imports of earlier cells, the globals of the interpreter whose reflect
// types say what the cell sees, and the declarations of earlier cells
// (Record: types, constants and method signatures, and the signatures of
// the functions the cell names or that are generic). Every error is
// ignored but "undefined: name" of a name that neither go/types nor the
// session knows: the session imports such a package for the cell, or
// reports the name. The other errors that Go would report too go to
// Env.Errors, which the session shows in place of an error of yaegi's
// that shows the interpreter's insides. The rewrite passes read the
// types.Info that Cell returns.
//
// Refused picks, of those errors, the ones the session reports before
// the cell runs, in the compiler's words and places: those that the
// session's partial view of itself cannot have caused (no global of the
// session, whose type go/types has from reflect, takes part unless
// GlobalsExact says those types are Go's, nor a name go/types does not
// know, nor a compiled type's unexported method, which reflect does not
// list), nor a compiled cell's declaration. Unused variables and imports
// are not errors in cells; an unused label is.
//
// UnexportedUse, NonFunctionCall and TooLarge find, in that Info,
// mistakes that Go refuses at compile time and yaegi accepts and then
// panics on (or, for an array larger than the address space, dies of);
// the session reports them as compile errors in the compiler's words.
//
// The package holds no state: the session (interp's Session.run) builds
// the Env from its records for each cell.
package typecheck
