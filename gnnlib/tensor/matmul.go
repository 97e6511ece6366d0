package tensor

// MatMul returns the matrix product t·u. For 2-D t [M, K] and u [K, N] the
// result is [M, N]; for 3-D t [B, M, K] and u [B, K, N] (or 2-D u, shared by
// the batch) it is the batched product [B, M, N]. When t is sparse (CSR) and
// u dense 2-D it is a parallel sparse×dense product whose gradient flows to
// u only. It runs on Threads() goroutines.
func (t *Tensor) MatMul(u *Tensor) *Tensor { panic("TODO") }

// MatMulInto computes dst = a·b for row-major float32 matrices a [m, k] and
// b [k, n] into dst [m, n] (overwritten) with the package's parallel blocked
// kernel. It is exported for compiled code that works on raw buffers.
func MatMulInto(dst, a, b []float32, m, k, n int) { panic("TODO") }
