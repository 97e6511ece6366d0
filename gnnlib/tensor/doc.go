// Package tensor provides dense float32 tensors, CSR sparse matrices and
// reverse-mode automatic differentiation for the gnnlib packages and for
// notebook cells.
//
// # Tensors
//
// A *Tensor is a row-major array of float32 with a shape ([]int). Create one
// with Zeros, Ones, Full, FromSlice, Scalar, Arange, Eye, or a seeded RNG
// (NewRNG(seed).Normal(0, 1, 3, 4), or the shorthands Rand and Randn). Ops
// are methods that return new tensors, so a layer reads like PyTorch:
//
//	y := x.MatMul(w).Add(b).ReLU()
//
// The API is deliberately non-generic and every heavy op is one compiled call
// on whole tensors: notebook cells run in an interpreter that extracts no
// generics and runs loops about 100 times slower than compiled Go.
//
// # Autograd
//
// Mark parameters with SetRequiresGrad(true). While gradients are enabled,
// each op output records its inputs and a backward function (a tape through
// the graph of tensors). Backward on a one-element tensor (BackwardWith for
// others) walks the graph in reverse topological order and adds gradients to
// Grad of every leaf that requires them. NoGrad(f) and DisableGrad() switch
// recording off; Detach cuts a tensor from the graph.
//
// Other packages define differentiable ops with NewOp: compute the output
// from Data(), then hand NewOp the output, the inputs and a BackwardFunc.
// GradCheck verifies any op against finite differences.
//
// # Sparse matrices
//
// SparseFromCSR builds a 2-D CSR matrix as an ordinary *Tensor whose IsSparse
// reports true, so layers accept dense and sparse features alike. MatMul of a
// sparse matrix by a dense one is a parallel sparse×dense product with a
// gradient to the dense side; IndexSelect and ToDense work on sparse
// matrices; every other op panics with an error wrapping ErrSparse that says
// to call ToDense.
//
// # Errors
//
// A shape mismatch is a programmer error: the op panics with a *ShapeError
// naming the op and both shapes (gonum's convention). The notebook session
// recovers such panics and reports them as a clean error for the cell; in Go
// code, recover and use errors.As. Out-of-range indices panic with an error
// wrapping ErrIndex.
//
// # Parallelism
//
// MatMul, sparse MatMul, Conv2D and large element-wise ops split their work
// over Threads() goroutines (default GOMAXPROCS); SetThreads changes it for
// the whole process. Reductions are computed in a fixed order, so results are
// deterministic and independent of the thread count.
//
// # Profiling
//
// SetOpHook installs a function called after every op's forward and backward
// pass with its name and timing, for an op-level profiler.
package tensor
