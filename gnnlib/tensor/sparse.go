package tensor

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/internal/parallel"
)

// csr is a compressed-sparse-row matrix.
type csr struct {
	indptr  []int
	indices []int
	values  []float32
}

func (s *csr) at(r, c int) float32 {
	for k := s.indptr[r]; k < s.indptr[r+1]; k++ {
		if s.indices[k] == c {
			return s.values[k]
		}
	}
	return 0
}

func (s *csr) clone() *csr {
	return &csr{
		indptr:  append([]int(nil), s.indptr...),
		indices: append([]int(nil), s.indices...),
		values:  append([]float32(nil), s.values...),
	}
}

func (s *csr) toDense(rows, cols int) *Tensor {
	t := newDense([]int{rows, cols})
	for r := 0; r < rows; r++ {
		row := t.data[r*cols : (r+1)*cols]
		for k := s.indptr[r]; k < s.indptr[r+1]; k++ {
			row[s.indices[k]] += s.values[k]
		}
	}
	return t
}

// SparseFromCSR returns a rows×cols sparse matrix from its CSR arrays:
// the column indices and values of row r are indices[indptr[r]:indptr[r+1]]
// and values[...]. The slices are used without copying. It panics with a
// *ShapeError when the arrays are inconsistent.
func SparseFromCSR(rows, cols int, indptr, indices []int, values []float32) *Tensor {
	bad := func(msg string) {
		panic(&ShapeError{Op: "SparseFromCSR", A: []int{rows, cols}, B: []int{len(indptr), len(indices), len(values)}, Msg: msg})
	}
	if rows < 0 || cols < 0 {
		bad("negative dimension")
	}
	if len(indptr) != rows+1 || indptr[0] != 0 {
		bad("indptr must have rows+1 entries starting at 0")
	}
	if len(indices) != len(values) || indptr[rows] != len(indices) {
		bad("indices and values must have indptr[rows] entries")
	}
	for r := 0; r < rows; r++ {
		if indptr[r+1] < indptr[r] {
			bad("indptr must not decrease")
		}
	}
	for _, c := range indices {
		if c < 0 || c >= cols {
			bad(fmt.Sprintf("column index %d out of range", c))
		}
	}
	return &Tensor{shape: []int{rows, cols}, sp: &csr{indptr: indptr, indices: indices, values: values}}
}

// SparseFromDense returns the CSR form of a dense 2-D tensor, keeping the
// non-zero entries.
func SparseFromDense(t *Tensor) *Tensor {
	t.mustDense("SparseFromDense")
	if len(t.shape) != 2 {
		panic(&ShapeError{Op: "SparseFromDense", A: cloneInts(t.shape), Msg: "needs a 2-D tensor"})
	}
	rows, cols := t.shape[0], t.shape[1]
	indptr := make([]int, rows+1)
	var indices []int
	var values []float32
	for r := 0; r < rows; r++ {
		for c, v := range t.data[r*cols : (r+1)*cols] {
			if v != 0 {
				indices = append(indices, c)
				values = append(values, v)
			}
		}
		indptr[r+1] = len(indices)
	}
	return SparseFromCSR(rows, cols, indptr, indices, values)
}

// IsSparse reports whether t is a CSR sparse matrix.
func (t *Tensor) IsSparse() bool { return t.sp != nil }

// NNZ returns the number of stored entries of a sparse matrix, or Len() for
// a dense tensor.
func (t *Tensor) NNZ() int {
	if t.sp != nil {
		return len(t.sp.values)
	}
	return len(t.data)
}

// CSR returns the arrays of a sparse matrix (aliasing it); it panics for a
// dense tensor.
func (t *Tensor) CSR() (indptr, indices []int, values []float32) {
	if t.sp == nil {
		panic(&ShapeError{Op: "CSR", A: cloneInts(t.shape), Msg: "not a sparse tensor"})
	}
	return t.sp.indptr, t.sp.indices, t.sp.values
}

// ToDense returns a dense copy of a sparse matrix, or t itself when dense.
func (t *Tensor) ToDense() *Tensor { return t.dense() }

// sparseRows gathers rows of a sparse matrix into a new sparse matrix.
func sparseRows(t *Tensor, idx []int) *Tensor {
	s := t.sp
	indptr := make([]int, len(idx)+1)
	for i, r := range idx {
		indptr[i+1] = indptr[i] + s.indptr[r+1] - s.indptr[r]
	}
	indices := make([]int, indptr[len(idx)])
	values := make([]float32, len(indices))
	for i, r := range idx {
		copy(indices[indptr[i]:indptr[i+1]], s.indices[s.indptr[r]:s.indptr[r+1]])
		copy(values[indptr[i]:indptr[i+1]], s.values[s.indptr[r]:s.indptr[r+1]])
	}
	return &Tensor{shape: []int{len(idx), t.shape[1]}, sp: &csr{indptr: indptr, indices: indices, values: values}}
}

// spmm is the sparse×dense product s·u for sparse s [M, K] and dense u
// [K, N], parallel over rows of s. The gradient goes to u only:
// dU = sᵀ·G, computed by scattering each stored entry's row of G, which is
// serial over the rows of s but parallel over column blocks of G so that the
// summation order (and so the result) does not depend on the thread count.
func spmm(t, u *Tensor) *Tensor {
	start := opStart()
	u.mustDense("MatMul")
	if len(u.shape) != 2 || u.shape[0] != t.shape[1] {
		panic(&ShapeError{Op: "MatMul", A: cloneInts(t.shape), B: cloneInts(u.shape), Msg: "sparse×dense needs a 2-D right operand with matching rows"})
	}
	s := t.sp
	m, k, n := t.shape[0], t.shape[1], u.shape[1]
	out := newDense([]int{m, n})
	grain := 1
	if nnz := len(s.values); nnz > 0 {
		grain = elemGrain*m/(nnz*n+1) + 1
	}
	parallelFor(m, grain, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			dst := out.data[r*n : (r+1)*n]
			for p := s.indptr[r]; p < s.indptr[r+1]; p++ {
				v := s.values[p]
				src := u.data[s.indices[p]*n : s.indices[p]*n+n]
				for j, x := range src {
					dst[j] += v * x
				}
			}
		}
	})
	return newOpSince(start, "SpMM", out, []*Tensor{t, u}, func(g *Tensor) []*Tensor {
		gu := newDense([]int{k, n})
		const cb = 64 // columns per task
		parallelFor((n+cb-1)/cb, 1, func(lo, hi int) {
			j0, j1 := lo*cb, min(hi*cb, n)
			for r := 0; r < m; r++ {
				// Each task runs over every row: check for an interrupt
				// now and then (the loop then panics with *Canceled).
				if r%4096 == 0 && parallel.Stopping() {
					return
				}
				grow := g.data[r*n+j0 : r*n+j1]
				for p := s.indptr[r]; p < s.indptr[r+1]; p++ {
					v := s.values[p]
					dst := gu.data[s.indices[p]*n+j0 : s.indices[p]*n+j1]
					for j, x := range grow {
						dst[j] += v * x
					}
				}
			}
		})
		return []*Tensor{nil, gu}
	})
}
