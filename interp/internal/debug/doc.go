// Package debug runs a session's cells under yaegi's debugger: the
// breakpoints, stops, line steps and variables that package interp's
// Session offers (Session.SetDebug, Stop, Resume) and package worker
// turns into the Jupyter debug protocol.
//
// # Cells and lines
//
// Every piece of source the session gives yaegi for a cell carries the
// cell's own lines in //line directives, numbered apart per cell
// (rewrite.VirtualLine). While debugging is on, each piece is compiled
// and run in yaegi's Debug with breakpoints on the lines that
// Options.Breakpoints returns for every cell the session has run, so a
// breakpoint in a function of an earlier cell stops when a later cell
// calls it: the compiled pieces that declared functions are kept as
// breakpoint targets. A stop reaches Options.Stopped as a *Stop, which
// the cell waits on until it is resumed or interrupted. With debugging
// off a cell runs as before: the cost is a nil check per piece, and in a
// debuggable session the short run of the piece that makes a cell's
// functions (see Debugger.Pin).
//
// yaegi's own steps are per node (a line has many); a Run steps by line:
// a step that stops on the line and in the frame where it began goes on
// by itself, and so does a stop inside the session's helpers.
//
// # What it asks of the session
//
// The session is a Host: its variables (read without running code, so
// that they can be read while a cell is stopped), the name of the cell
// function that holds a line, and the hook that stops an interrupted
// cell's interpreted goroutines. The package does not import package
// interp; interp's public debugger types are aliases of this package's.
//
// BUG(debug): the package reads and writes unexported fields of yaegi
// v0.16.1's Interpreter and Debugger (the global frame's debug data, the
// debugger field, the live goroutine records) through reflect and
// unsafe. Pin checks their names and types first and leaves a session
// that it does not recognise undebuggable, so another yaegi turns
// debugging off rather than corrupting memory.
//
// BUG(debug): a binary built with -race is never debuggable: yaegi's
// debugger is not synchronised.
package debug
