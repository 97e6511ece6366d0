// Package magic is the syntax of gnnlab's magic commands, shared by the
// session (package interp, which runs most of them) and package client,
// which runs for every frontend the ones that need the list of cells. It
// imports nothing of the interpreter, so that the kernel process, which
// uses package client, does not link yaegi.
//
// # Syntax
//
// A magic line starts with % ("%time f()") or ! ("!ls -l") in the first
// column; a cell magic is a first line "%%name args" that applies to the
// rest of the cell. Split parses one line. Lines finds the magic lines of
// a cell that mixes them with Go: a line counts where a statement of the
// cell's top level could start, not inside a string, a comment, brackets
// or a block. IPython's "name?" and "name??" ask for the documentation of
// name (Page).
//
// # Measurements
//
// CPUTime is the process's user and system CPU time (getrusage; zero
// where it is missing), which %time prints beside the wall time.
//
// # Who runs what
//
// All lists every magic for %help; those marked Frontend (%history,
// %replay, %restart and "name?") are run by the frontend through
// package client, the others by the session. Frontend reports whether a
// cell is one line holding a frontend magic.
package magic
