// Command opgen writes the numeric op codes that gnnlib/cuda's Go side and
// its CUDA kernels share, from the one table in ops.go: the codes in Go
// (gnnlib/cuda/opcodes_gen.go), the same codes as macros for the kernels
// (gnnlib/cuda/kernels/opcodes.cuh) and gnnlib/tensor's map from its
// element-wise ops to the backend's names for them
// (gnnlib/tensor/devicemaps_gen.go). Run by go generate in gnnlib/cuda.
package main
