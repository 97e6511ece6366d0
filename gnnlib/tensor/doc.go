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
// recording off for the calling goroutine (as PyTorch's grad mode is per
// thread), so goroutines may train models side by side; Detach cuts a
// tensor from the graph.
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
// wrapping ErrIndex. A shape whose element count overflows, or whose values
// would not fit in memory (MaxBytes), panics with an error wrapping
// ErrTooLarge before anything is allocated; a NaN or infinite argument to
// Arange with one wrapping ErrNotFinite.
//
// # Parallelism
//
// MatMul, sparse MatMul, Conv2D and large element-wise ops split their work
// over Threads() goroutines (default GOMAXPROCS); SetThreads changes it for
// the whole process, and for every CPU loop of gnnlib with it: the graph
// kernels, the layers of gnnlib/nn and the quantized kernels split their
// work through the same knob. Reductions are computed in a
// fixed order, so results are deterministic and independent of the thread
// count.
//
// # Matrix multiplication
//
// MatMul uses the package's own float32 kernel (gemm.go): Goto-style
// blocking that packs panels of B (256×512) and blocks of A (96×256) into
// zero-padded micro-panels, and a 6×16 register-blocked micro-kernel,
// parallel over row blocks of the result on Threads() goroutines. On amd64
// with AVX2 and FMA (checked at start-up with golang.org/x/sys/cpu) the
// micro-kernel is assembly (gemm_amd64.s: twelve YMM accumulators, twelve
// fused multiply-adds per step of k); elsewhere, or built with the purego
// tag, it is plain Go. Transposed operands are read through strides during
// packing, so the backward pass never materialises a transpose.
//
// Measured on the 2-core development machine (shared with other jobs, so
// noisy), GFLOP/s for square n×n products on 2 threads:
//
//	n      assembly kernel   previous Go 4×4 kernel   gonum Sgemm (blas/gonum)
//	256    24–52             3.0                      6–7.6
//	512    39–72             1.2                      2.4–4.2
//	1024   39                4.1                      3.7–5.5
//
// We use our own kernel rather than gonum's: it is several times faster,
// honours SetThreads (gonum always spawns GOMAXPROCS workers, which breaks
// the speedup curves the profiler draws), gives bit-identical results for
// every thread count (each element is summed over k in the same order
// whatever the split), and reads transposed operands without copies.
// BenchmarkMatMul runs both side by side.
//
// Conv2D with stride 1 and padding below the kernel size (LeNet-5, most
// small CNNs) is a direct convolution without an im2col matrix (conv.go):
// each image is copied once into a zero-padded buffer, and output pixels
// are computed on a grid as wide as the padded input, where the input
// under every filter tap is that buffer shifted by a fixed offset. A 6×16
// assembly kernel reads those shifted rows in place through a table of
// offsets, starting from the bias and, for Conv2DReLU, rectifying as it
// stores. The weight gradient is a 4×3 block of dot products per call
// (assembly, eight lanes each) between the output gradient on the same
// grid and the shifted inputs, over the whole batch; the input gradient
// is the same direct convolution of the output gradient with the flipped
// filters. Images run in parallel in the forward pass, blocks of the
// weight gradient in the backward pass, each in a fixed order, so the
// results are bit-identical for every thread count (TestConv2DDirect).
// Other strides run per image as W [O, C·KH·KW] · cols [C·KH·KW, OH·OW].
// Conv2DReLU fuses the rectifier (nn.Sequential uses it for a Conv2D
// followed by a ReLU), MaxPool2D has a branch-free 2×2 stride-2 path, and
// the backward pass takes its large temporaries from pools.
//
// LeNet-5, one epoch over 8,000 MNIST digits (batches of 32, Adam), on
// the shared 2-core development machine under the same load (about 5
// runnable jobs), medians of three runs of three epochs:
//
//	                        wall ms/epoch   CPU s (4 epochs + data)
//	im2col + GEMM (before)  3,100           10.4
//	direct (after)          1,376           4.1
//
// A sparse×dense MatMul on a Cora-shaped matrix (2708×1433, 1.3% non-zero)
// by a 1433×16 weight takes about 0.7 ms, against about 35 ms for the same
// product dense.
//
// # Devices
//
// A tensor lives in host memory or, after x.To(dev), in a device's memory
// (Storage). The package has no device code: a backend package implements
// the Backend interface and registers it (gnnlib/cuda as "cuda", when
// built with -tags cuda), and Device("cuda") opens it, with an error that
// says why when it cannot (built without CUDA, no GPU). Ops whose operands
// live on a device run there and record autograd on the same tape, so
// Backward, gradients and optimiser steps stay on the device: MatMul (2-D),
// Add, Sub, Mul and Div (same shapes, a broadcast row or one value),
// AddScalar, MulScalar, Neg, ReLU, LeakyReLU, ELU, GELU, Sigmoid, Tanh,
// Exp, Log, Sqrt, Abs, Square, Pow, Sum, Mean, SumAxis, MeanAxis,
// Softmax, LogSoftmax, Reshape (View, Flatten), Transpose, Permute,
// IndexSelect, IndexAdd, ScatterAddRows, Concat, Split, Narrow, Dropout
// (its mask drawn on the device from a seed the RNG gives), Conv2D and
// Conv2DReLU (im2col and one matrix product), MaxPool2D, AvgPool2D,
// CrossEntropy, NLL, MSE, BCEWithLogits and Clone. ArgMax and ArgMin run there and copy back
// only the indices. The other ops (listed under BUGS) panic with a
// *DeviceError wrapping ErrNotOnDevice that names them; nothing is copied
// to the CPU behind the user's back. Item, At, Float64s, String and
// AllClose read values and so copy them back; CPU() copies a tensor back.
// On the CPU the cost of all this is one nil check per op.
//
// On a device the tape keeps no more memory than the backward functions
// read: it refers to the outputs of recorded device ops through
// stand-ins without their storage, and the backward functions of ReLU,
// Dropout, Add, Sub, Mul and Div keep only the operands their gradients
// need, so an intermediate that no backward function reads (a ReLU's
// input, a dropout's) goes back to the device once the program drops it
// (gnnlib/cuda takes such memory back when the garbage collector
// finalises the tensor), not when the tape dies. With
// ReleaseSpentActivations on (the default), the
// backward pass holds the graph's tensors only weakly as well: an
// activation that a backward function saved becomes garbage once that
// function has run, not when the pass ends.
//
// # Mixed precision
//
// Autocast(BFloat16, f) runs f as torch.autocast(dtype=torch.bfloat16)
// does: the output of every op is stored in bfloat16 (its float32 values
// rounded to nearest even on store, gnnlib/internal/half), and so are the
// gradients the backward pass makes for them, whenever Backward runs;
// sums inside ops stay float32, Softmax, LogSoftmax, the losses, Sum and
// Mean keep float32 outputs, and parameters (leaves) stay float32 master
// weights that the optimisers update. Float16 does the same in IEEE half
// precision, whose narrow range needs nn.GradScaler. The scope is per
// goroutine, like NoGrad. On the CPU this is an emulation: the numbers of
// 16-bit storage at float32's speed and memory, the reference that the
// device kernels are tested against. A device runs it when its backend
// implements HalfBackend: where it also implements HalfStorer
// (gnnlib/cuda for BFloat16, devicetest.Fake for both formats) each op's
// output and each gradient of the backward pass is kept in 16-bit
// storage, two bytes a value (Tensor.DType says which), and the backend's
// 16-bit kernels read and write it; elsewhere each float32 output is
// rounded in place. Gradients are accumulated, and given to the leaves,
// in float32 (Clone of 16-bit storage widens). RoundTo rounds one tensor.
//
// # Profiling
//
// An op-level profiler (gnnlib/prof) sees every op's forward and backward
// pass with its name and timing through backend.SetOpHook
// (gnnlib/tensor/backend, the device contract, which also holds the
// plumbing that backends call: NewOpSince, OpStart, FromStorage and the
// registry).
package tensor

// BUG(tensor): Only amd64 has an assembly matmul micro-kernel; other
// architectures (arm64 laptops included) run the Go one, several times
// slower. The assembly kernel's fused multiply-adds round differently from
// the Go kernel, so the last bits of a product differ between the two
// (each is deterministic on its own).
//
// BUG(tensor): Conv2D's forward pass parallelises over the images of a
// batch; a batch of one image runs on one goroutine. The direct path
// computes the discarded columns of its padded-width grid (40% extra work
// for LeNet-5's second layer) and its input gradient multiplies the zero
// padding of the output gradient. There is no dilation, groups or
// asymmetric stride/padding, and pooling has no padding.
//
// BUG(tensor): A sparse tensor moved to a device becomes dense there;
// device tensors are float32 and at most 2-D for MatMul; broadcasting on a
// device covers a row over a matrix and one value over anything. Clamp,
// Max and Min along an axis and the batched (3-D) MatMul have no device
// version yet.
//
// BUG(tensor): Under Autocast on the CPU, and on a device without
// HalfStorer (gnnlib/cuda under Float16), tensors still hold float32
// values rounded to 16-bit ones: the numbers are those of 16-bit storage,
// the memory and the speed are float32's, and a device pays one rounding
// pass per op. Only the 2-D MatMul reads its operands rounded (a float32
// weight too, as torch.autocast and the tensor cores do); the other ops
// read float32 operands as they are.
//
// BUG(tensor): Sparse tensors support only MatMul (sparse×dense, gradient to
// the dense side), IndexSelect, At and ToDense.
