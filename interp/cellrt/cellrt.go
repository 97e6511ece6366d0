package cellrt

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/gnnlab/gnnlab/interp/cellrt/check"
)

// Interrupted is the panic value with which compiled code stops on an
// interrupt.
type Interrupted = check.Interrupted

// Check stops compiled code when the cell is interrupted: check.Check,
// which generated code calls (package check holds the flag, so that a
// plugin that needs nothing else of cellrt links only it).
func Check() { check.Check() }

// Interrupt makes every running Check panic with Interrupted (on), or
// lets compiled code run again (off).
func Interrupt(on bool) { check.Interrupt(on) }

// ExitHook is what os.Exit does in compiled cells: the session sets it so
// that the cell ends and the worker stays.
var ExitHook func(code int)

// Stdin is os.Stdin in compiled cells: the session's input (in a
// notebook, the frontend's input box), an io.Reader as in interpreted
// cells.
var Stdin io.Reader = os.Stdin

// Scan, Scanln and Scanf are fmt's, reading Stdin.
func Scan(a ...any) (int, error) { return fmt.Fscan(Stdin, a...) }

// Scanln is fmt.Scanln of compiled cells.
func Scanln(a ...any) (int, error) { return fmt.Fscanln(Stdin, a...) }

// Scanf is fmt.Scanf of compiled cells.
func Scanf(format string, a ...any) (int, error) { return fmt.Fscanf(Stdin, format, a...) }

// Args is os.Args in compiled cells: what a program run by go run sees
// without arguments, as in interpreted cells.
var Args = []string{"main"}

// Exit replaces os.Exit in compiled cells.
func Exit(code int) {
	if h := ExitHook; h != nil {
		h(code)
	}
	panic("cellrt: os.Exit without a session")
}

// Fatal, Fatalf and Fatalln replace log's in compiled cells: they print
// as log does, then Exit(1).
func Fatal(v ...any) { _ = log.Output(2, fmt.Sprint(v...)); Exit(1) }

// Fatalf is log.Fatalf of compiled cells.
func Fatalf(format string, v ...any) { _ = log.Output(2, fmt.Sprintf(format, v...)); Exit(1) }

// Fatalln is log.Fatalln of compiled cells.
func Fatalln(v ...any) { _ = log.Output(2, fmt.Sprintln(v...)); Exit(1) }
