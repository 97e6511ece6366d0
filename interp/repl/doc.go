// Package repl is gnnlab's terminal REPL (gnnlab repl): Go cells typed at
// a prompt run in the same session engine as the Jupyter kernel, in a
// supervised worker process (package client).
//
// # At a terminal
//
// When standard input and output are a terminal the REPL edits lines
// (github.com/chzyer/readline: arrows, Ctrl-R search, Emacs keys), keeps
// a history file ($GNNLAB_REPL_HISTORY, else
// ~/.local/share/gnnlab/repl_history), completes with Tab from the
// session, and asks for more lines ("...> ") while the session says the
// cell is incomplete (an open brace, an unfinished expression). Errors
// are red unless NO_COLOR is set. Ctrl-C at the prompt drops the lines
// typed; while a cell runs it interrupts the cell (and kills the worker
// if the cell has not stopped two seconds later) and the REPL stays.
// Ctrl-D at an empty prompt exits. When a cell reads os.Stdin the REPL
// asks for a line; Ctrl-D there is the end of the cell's input (the cell
// reads io.EOF), and an empty line is an empty line.
//
// # In a pipe
//
// Otherwise the REPL reads cells from standard input with no prompt and
// no colour, so that
//
//	printf 'x := 2\nx*21\n' | gnnlab repl
//
// prints 42. Lines are gathered until they form a complete cell. Values
// and printed text go to standard output, errors to standard error; the
// exit status is 1 when a cell failed or the worker died (between cells
// too: the state of the run is lost).
//
// # Rich values
//
// A value shown as an image (a plot, an image.Image) is saved to a
// temporary PNG or JPEG file whose path is printed after its text; at a
// terminal a small Unicode (braille) drawing of it follows. Other bundles
// print their text/plain form. A display updated in place (a progress
// bar) is redrawn on its line at a terminal.
//
// # Magics
//
// All magics work (%help lists them); %history, %replay, %restart and
// "name?" (documentation) run in package client, as in the kernel, the
// others in the worker's session. A cell exit or quit ends the REPL, as
// Ctrl-D does.
//
// BUG(repl): A multi-line cell is saved in the history file line by line,
// so recalling it takes one line at a time.
package repl
