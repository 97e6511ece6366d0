// Package tune holds the selection of gnnlib/cuda's superseded kernel
// families, which gnnlib/cuda's benchmarks (bench/gnnbench) and tests
// compare with the current ones. It is internal: notebooks and other
// packages get the current kernels and cannot switch them.
package tune
