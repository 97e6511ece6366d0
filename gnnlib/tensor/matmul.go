package tensor

import "slices"

// MatMul returns the matrix product t·u. For 2-D t [M, K] and u [K, N] the
// result is [M, N]; for 3-D t [B, M, K] and u [B, K, N] (or 2-D u, shared by
// the batch) it is the batched product [B, M, N]. When t is sparse (CSR) and
// u dense 2-D it is a parallel sparse×dense product whose gradient flows to
// u only. It runs on Threads() goroutines.
func (t *Tensor) MatMul(u *Tensor) *Tensor {
	if t.dev != nil || u.dev != nil {
		return deviceMatMul(t, u)
	}
	if t.sp != nil {
		return spmm(t, u)
	}
	u.mustDense("MatMul")
	start := opStart()
	switch {
	case len(t.shape) == 2 && len(u.shape) == 2:
		m, k, n := t.shape[0], t.shape[1], u.shape[1]
		if u.shape[0] != k {
			panic(&ShapeError{Op: "MatMul", A: cloneInts(t.shape), B: cloneInts(u.shape)})
		}
		out := newDense([]int{m, n})
		a, b := t.data, u.data
		if castOn.Load() != 0 {
			// Under Autocast both operands are read in the 16-bit
			// format, as a device's tensor cores read them (a float32
			// weight rounded), torch.autocast's matmul.
			if dt := AutocastDType(); dt != Float32 {
				a, b = slices.Clone(a), slices.Clone(b)
				dt.roundSlice(a)
				dt.roundSlice(b)
			}
		}
		gemm(m, n, k, matrix{a, k, 1}, matrix{b, n, 1}, out.data, n, false)
		return newOpSince(start, "MatMul", out, []*Tensor{t, u}, func(g *Tensor) []*Tensor {
			var ga, gb *Tensor
			if t.RequiresGrad() { // dA = G·Bᵀ
				ga = newDense(t.shape)
				gemm(m, k, n, matrix{g.data, n, 1}, matrix{b, 1, n}, ga.data, k, false)
			}
			if u.RequiresGrad() { // dB = Aᵀ·G
				gb = newDense(u.shape)
				gemm(k, n, m, matrix{a, 1, k}, matrix{g.data, n, 1}, gb.data, n, false)
			}
			return []*Tensor{ga, gb}
		})
	case len(t.shape) == 3 && (len(u.shape) == 3 || len(u.shape) == 2):
		bt, m, k := t.shape[0], t.shape[1], t.shape[2]
		shared := len(u.shape) == 2
		ub, uk, n := 1, u.shape[0], u.shape[1]
		if !shared {
			ub, uk, n = u.shape[0], u.shape[1], u.shape[2]
		}
		if uk != k || (!shared && ub != bt) {
			panic(&ShapeError{Op: "MatMul", A: cloneInts(t.shape), B: cloneInts(u.shape)})
		}
		if shared { // one big product: [B·M, K]·[K, N]
			out := t.Reshape(bt*m, k).MatMul(u)
			return out.Reshape(bt, m, n)
		}
		out := newDense([]int{bt, m, n})
		for i := 0; i < bt; i++ {
			gemm(m, n, k, matrix{t.data[i*m*k:], k, 1}, matrix{u.data[i*k*n:], n, 1}, out.data[i*m*n:], n, false)
		}
		return newOpSince(start, "BatchMatMul", out, []*Tensor{t, u}, func(g *Tensor) []*Tensor {
			var ga, gb *Tensor
			if t.RequiresGrad() {
				ga = newDense(t.shape)
				for i := 0; i < bt; i++ {
					gemm(m, k, n, matrix{g.data[i*m*n:], n, 1}, matrix{u.data[i*k*n:], 1, n}, ga.data[i*m*k:], k, false)
				}
			}
			if u.RequiresGrad() {
				gb = newDense(u.shape)
				for i := 0; i < bt; i++ {
					gemm(k, n, m, matrix{t.data[i*m*k:], 1, k}, matrix{g.data[i*m*n:], n, 1}, gb.data[i*k*n:], n, false)
				}
			}
			return []*Tensor{ga, gb}
		})
	}
	panic(&ShapeError{Op: "MatMul", A: cloneInts(t.shape), B: cloneInts(u.shape), Msg: "needs 2-D×2-D, 3-D×3-D or 3-D×2-D operands"})
}

// MatMulInto computes dst = a·b for row-major float32 matrices a [m, k] and
// b [k, n] into dst [m, n] (overwritten) with the package's parallel blocked
// kernel. It is exported for compiled code that works on raw buffers.
func MatMulInto(dst, a, b []float32, m, k, n int) {
	if len(a) < m*k || len(b) < k*n || len(dst) < m*n {
		panic(&ShapeError{Op: "MatMulInto", A: []int{m, k}, B: []int{k, n}, Msg: "buffer too short"})
	}
	gemm(m, n, k, matrix{a, k, 1}, matrix{b, n, 1}, dst, n, false)
}

// spmm is sparse(CSR)×dense; implemented in sparse.go.
