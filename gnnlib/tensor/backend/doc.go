// Package backend is the device contract of gnnlib, in the manner of
// database/sql/driver: what a device backend (gnnlib/cuda, the test
// device gnnlib/devicetest.Fake) implements and calls, kept out of the
// notebook API of gnnlib/tensor and gnnlib/nn. Notebook code never
// imports it; it opens a device with tensor.Device("cuda") and moves
// tensors and models with To.
//
// # The interfaces
//
// Backend (declared in gnnlib/tensor, whose Tensor.To takes it) is what
// every device implements: uploads and downloads, and the tensor ops that
// gnnlib/tensor runs on a device. The rest are optional capabilities,
// found with a type assertion as io.WriterTo is: GraphOps, the graph
// layers, fused norms and optimiser steps of gnnlib/nn (GraphBackend is
// a Backend with them; Graph asserts it); MemoryReporter, a device's
// memory for tensor.MemoryOf; Freer, a Storage that gives its memory
// back at once. A device without a capability still runs every op that
// composes from Backend methods; the others panic with a
// *tensor.DeviceError wrapping tensor.ErrNotOnDevice.
//
// # Op codes
//
// The methods that run one of a family of ops take a typed code, not a
// string: Map and MapGrad a MapOp, Binary a BinaryOp, Loss a LossOp,
// Pool2D and Pool2DGrad a PoolOp. The codes come from one table,
// internal/opgen/ops.go, from which go generate writes the constants
// (opcodes_gen.go here, over gnnlib/tensor/backend/opcode),
// gnnlib/tensor's map from its element-wise ops to their codes,
// gnnlib/cuda's table of the kernel and code each op runs and the
// kernels' macros (kernels/opcodes.cuh), and gnnlib/devicetest's host
// reference of each element-wise map with its parity case.
//
// # Registry
//
// Register records a device kind's Driver under its name: how to open
// its default device (tensor.Device) and, optionally, how to count the
// bytes its open devices hold (tensor.DeviceMemory, which gnnlib/prof's
// memory tracker samples). A backend package registers from its init
// function; a binary links the backend by importing its package.
//
// # Plumbing
//
// NewOpSince, NewGraphOpSince and OpStart record a device op on the
// autograd tape with its timing; FromStorage wraps a backend's Storage in
// a tensor; SetOpHook installs the op profiler's hook (gnnlib/prof).
// They live here, not in gnnlib/tensor, so that a notebook's completion
// on tensor offers none of them.
//
// SetCancelCheck is for the program that runs notebook cells: it installs
// a check that every parallel CPU loop of gnnlib polls between chunks, so
// that an interrupt stops a long kernel with a *Canceled panic.
//
// GraphCache keeps a value per host graph (a device copy of it), made at
// first use and released when the host graph is collected: gnnlib/cuda's
// device graphs and the Fake's graph memory both live in one.
//
// # Adding a device op
//
// An element-wise map (a new activation, say) is three edits:
//
//  1. gnnlib/tensor: the CPU op (its unOp constant, name and loops) —
//     the reference every device is checked against.
//  2. internal/opgen/ops.go: a row in the MapOp family (MAP for map_fwd,
//     MAP_EXT for map_ext_fwd) with its Go name, name, unOp constant,
//     formula, the tensor method call computing it, its derivative and
//     the parameter and input of its test case.
//  3. gnnlib/cuda/kernels/elementwise.cu: the case of the generated macro
//     in the forward and backward switch.
//
// Then go generate ./gnnlib/cuda writes the codes, tensor's dispatch map,
// cuda's kernel table, the kernels' macros, the Fake's version and the
// op's case in devicetest.OpCases, and recompiles the PTX (nvcc). A new
// code in another family (a loss, a pooling, a binary op) is the same
// row in its family plus the Fake's case for it (devicetest/fake.go).
//
// An op with a method of its own (a fused kernel) is six:
//
//  1. the kernel, in its family's .cu file under gnnlib/cuda/kernels (a
//     new family: a new file and its #include in gnn.cu);
//  2. its launcher and its adapter method on gnnlib/cuda's backend type,
//     in the family's Go file;
//  3. the method, in Backend (gnnlib/tensor/device.go, a tensor op) or
//     GraphOps (backend.go here, a layer or optimiser of gnnlib/nn), with
//     its contract in the doc comment;
//  4. its host version on devicetest.Fake (usually the CPU op through
//     Fake.autograd);
//  5. the op that records it: a device branch in gnnlib/tensor or
//     gnnlib/nn calling the method, FromStorage on its result and
//     NewOpSince with a backward closure of Backend calls (inside
//     gnnlib/tensor, their unexported twins fromStorage and newOpSince);
//  6. its case in devicetest.OpCases, which gnnlib/nn's tests run on the
//     Fake and gnnlib/cuda's on the GPU.
//
// A method a device may lack returns an error wrapping
// tensor.ErrNotOnDevice, which the recording op turns into a
// *tensor.DeviceError naming the op (or a composed fallback, as the
// attention ops do).
//
// A fused kernel for an op that already composes from device ops is
// four: the kernel (1) and its launcher and adapter (2) as above, a
// one-method optional capability declared here (3) rather than a method
// of GraphOps, and the device branch of the op (4), which asserts the
// capability and falls back to the composed version without it (or on
// ErrNotOnDevice for a shape the kernel does not take). The Fake needs
// nothing, and the op's existing case in OpCases checks the composed
// path on the Fake and the fused one on the GPU. TransformerAttention is
// built this way: its capability is TransformerOps.
package backend

//go:generate go run ./internal/opgen
