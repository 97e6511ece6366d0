package graph

import "fmt"

// checkLen panics with an error wrapping ErrShape: a wrong slice length is a
// programmer error, as a shape mismatch is in gonum.
func checkLen(op, what string, got, want int) {
	if got != want {
		panic(fmt.Errorf("graph: %s: len(%s) = %d, want %d: %w", op, what, got, want, ErrShape))
	}
}
