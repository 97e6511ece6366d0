package backend

import "github.com/gnnlab/gnnlab/gnnlib/internal/parallel"

// Canceled is the panic value of a CPU loop of gnnlib stopped by the
// cancel check; it wraps the check's error.
type Canceled = parallel.Canceled

// SetCancelCheck installs check, which every parallel CPU loop of gnnlib
// (tensor ops, graph kernels, the layers' aggregations, quantized
// kernels) calls between chunks, and returns the previous one; nil removes
// it. When check returns an error, the loop starts no further chunk,
// waits for those running and panics on the goroutine that called the op
// with a *Canceled wrapping the error, which the host recovers at the
// cell's boundary (errors.As). It is for the program that runs notebook
// cells (the worker, on an interrupt), not for cells: check must be cheap
// and safe to call from many goroutines at once. A loop too small to
// split polls it once, before it runs.
func SetCancelCheck(check func() error) (previous func() error) {
	return parallel.SetCancelCheck(check)
}
