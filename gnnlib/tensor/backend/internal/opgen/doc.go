// Command opgen writes the typed op codes of the device contract from the
// one table in ops.go: the types and constants
// (gnnlib/tensor/backend/opcode/opcodes_gen.go, re-exported by
// gnnlib/tensor/backend's opcodes_gen.go), gnnlib/tensor's map from its
// element-wise ops to them (devicemaps_gen.go), gnnlib/cuda's table of
// the kernel and code each op runs (opcodes_gen.go) and the same codes as
// macros for the kernels (gnnlib/cuda/kernels/opcodes.cuh). Run by
// go generate in gnnlib/cuda (before the PTX is compiled) and in
// gnnlib/tensor/backend.
package main
