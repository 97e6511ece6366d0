// Package cellrt is the runtime that compiled cells link: the interrupt
// flag their loops and functions check, and the replacements of os.Exit,
// log.Fatal*, os.Args and the functions of package flag, which would
// otherwise end, describe or change the worker process rather than the
// cell (interpreted cells get cellrt's flag functions too, so that both
// kinds of cell share one set of flags).
//
// The session's compiled tier (interp/internal/compiled) generates the
// calls; nothing else should import this package. It is not internal
// because a cell's plugin is built in a module of its own, which may not
// import the checkout's internal packages, and it must be one package
// shared by the host and every plugin (the flag is one variable).
//
// # Interrupts
//
// check.Check (package check, apart so that a plugin that needs nothing
// else of cellrt links neither fmt nor log nor flag) is inserted at the
// entry of each compiled function that may call back into cell code and
// at each loop back-edge; it inlines to one load of the flag and a
// branch. A counted loop whose body is straight-line
// code tests its counter instead and calls Check every 4,096 iterations.
// When the session's cell is interrupted, Interrupt(true) makes the next
// Check panic with Interrupted, which unwinds the compiled code like any
// panic; the next cell resets the flag.
package cellrt
