// Package parallel is gnnlib's one thread knob and its parallel loops: every
// CPU kernel of gnnlib/tensor, gnnlib/graph, gnnlib/nn, gnnlib/quant and
// gnnlib/prof splits its work through this package, so that
// tensor.SetThreads (which sets the knob here) governs them all.
//
// # Loops
//
// For splits [0, n) into ranges of at least grain items, up to 16 a
// worker on up to Threads() workers, which take them from a shared
// counter (elementwise ops, GEMM panels, convolutions). Rows splits the
// rows of a CSR matrix into blocks of about equal edges plus rows, up to
// 16 a worker, taken the same way (work stealing): power-law graphs put
// most edges on a few rows. RowsByWorker cuts the rows into exactly
// Workers(indptr, minWork) ranges, one per worker, and hands each to its
// worker in pieces taken in order, so that per-worker partial sums add up
// in the same order every run. Steal runs chunks 0..n-1 on up to
// Threads() workers that take the next chunk from a shared counter.
//
// A loop whose work is below its threshold runs on the calling goroutine.
// The functions passed to a loop must not panic: a panic in a worker
// goroutine kills the process, so callers check shapes and indices first.
//
// # Cancellation
//
// SetCancelCheck installs a function that the loops call between chunks
// (before a worker takes its next range, block or piece, also when one
// thread runs them all) and once more after the last. When it returns a
// non-nil error, no further chunk starts; the loop waits for the chunks
// already running and then panics on the calling goroutine with a
// *Canceled that wraps the error. A chunk that is long by itself (a GEMM
// cuts its rows one range a thread, as each range packs the right operand
// again) calls Stopping between its blocks and returns early when it
// reports true; the check after the last chunk then raises the panic. A
// notebook session that turns an interrupt into such an error, and
// recovers the panic at the cell's boundary, stops a 4000² MatMul within
// milliseconds instead of at its end. With no check installed (the
// default) the loops poll nothing. The program that runs cells reaches it
// as backend.SetCancelCheck (gnnlib/tensor/backend), since this package is
// internal to gnnlib.
//
// # Counting
//
// ReadStats reports how many loops ran and how many workers they used in
// all (a loop run on the calling goroutine counts one worker). Tests use
// it to prove that an op honours the thread knob.
package parallel
