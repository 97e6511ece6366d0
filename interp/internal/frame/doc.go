// Package frame reaches the parts of a yaegi v0.16.1 interpreter that the
// session trims after each cell and that yaegi does not export: the global
// frame (its slots and mutex), the slot types of the universe and main
// scopes, the list of compiled roots, the scopes nested in each package
// scope, the package scopes' symbols and the file set.
//
// Each function first checks the names, kinds and types of the fields it
// uses through reflect and does nothing (or reports ok false, or -1) for
// another layout, so that a newer yaegi makes the session keep more memory
// rather than crash. The session (interp's release.go and Session.eval)
// decides when to call them; this package holds no state.
//
// # What the interpreter keeps per evaluation, and what the session lets go
//
// yaegi gives every temporary of top-level code (the value of a call, a
// function literal before its assignment, a variable of a block) a slot of
// the global frame, for good: the frame grows by a few slots with every
// cell, and the slots keep their values. A function literal evaluated at
// the top level copies the whole global frame (interp's frames.go says how
// the session avoids that). yaegi also keeps, for its debugger only, the
// root of every tree it compiled and every scope nested in a package scope:
// through them all the code of every cell stayed alive.
//
// After each cell the session resets the temporaries' slots that the cell
// added to zero values (not their storage: a closure made in the cell
// keeps its own copy of the slot and sees what it saw). Code of a finished
// top-level statement never runs again, and named globals, the only slots
// later code reads, are kept. The slots themselves stay (yaegi indexes
// them): 24 bytes each. It empties the debugger's lists ([DropRoots],
// [DropScopeChildren]) and forgets the functions it declared for the cell
// ([Forget]), so that the code of a statement or of a function redefined
// since can be freed; the code of live functions, types and the symbols of
// globals stay reachable from the package scope. yaegi's file set keeps
// the line table of every source it evaluated, for positions: those of
// statements that made no function are removed ([DropSources]).
//
// # The global frame stays as long as what lives in it
//
// On every evaluation that adds slots yaegi allocates the global frame
// anew and copies every slot into it: with a few slots a cell, a session
// of 10,000 cells copied a frame of 50,000 slots (1.2 MB of reflect.Values,
// under the write barrier while the GC runs) on nearly every cell, and the
// round trip of a trivial cell doubled (issue 28).
//
// The slots that statements take after the last global they define are
// never read again once the statements have run, when they made no
// function (a literal would keep a copy of the frame and read its slots
// by index) and started no goroutine (yaegi's go statement reads the
// call's slots as the goroutine starts). After such an evaluation [Trim]
// cuts the frame and its layout (the types of the universe and main
// scopes, which yaegi keeps equal to the frame's length) back to those
// slots: the next evaluation numbers its temporaries from there again, and
// the frame grows only with the globals and functions that live.
//
// A value of a cell's type with methods that went into a compiled
// interface (fmt.Stringer, display.Renderer) keeps reading its receiver
// from the slot it was made in, whenever a method is called: yaegi's
// wrapper holds the frame and the slot's index. Such a slot must not be
// handed to another value, so when a slot to be cut holds a type with
// methods (or a pointer to one), the frame is left as it is.
//
// GNNLAB_FRAME_TRIM=off turns the trimming off, for the benchmarks that
// compare the two (interp/client's BenchmarkSoak) and for a bug report
// that suspects it.
package frame
