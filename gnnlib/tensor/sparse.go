package tensor

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

func (s *csr) toDense() *Tensor { panic("TODO") }

// SparseFromCSR returns a rows×cols sparse matrix from its CSR arrays:
// the column indices and values of row r are indices[indptr[r]:indptr[r+1]]
// and values[...]. The slices are used without copying. It panics with a
// *ShapeError when the arrays are inconsistent.
func SparseFromCSR(rows, cols int, indptr, indices []int, values []float32) *Tensor {
	panic("TODO")
}

// SparseFromDense returns the CSR form of a dense 2-D tensor, keeping the
// non-zero entries.
func SparseFromDense(t *Tensor) *Tensor { panic("TODO") }

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
func (t *Tensor) CSR() (indptr, indices []int, values []float32) { panic("TODO") }

// ToDense returns a dense copy of a sparse matrix, or t itself when dense.
func (t *Tensor) ToDense() *Tensor { return t.dense() }
