package tensor

// Reshape returns a tensor with the same elements in a new shape; one
// dimension may be -1 and is inferred. The data is shared (a view).
func (t *Tensor) Reshape(shape ...int) *Tensor { panic("TODO") }

// View is Reshape (PyTorch's name).
func (t *Tensor) View(shape ...int) *Tensor { return t.Reshape(shape...) }

// Flatten returns t as a 1-D tensor.
func (t *Tensor) Flatten() *Tensor { return t.Reshape(-1) }

// FlattenFrom keeps the axes before axis and flattens the rest into one:
// for a batch [N, C, H, W], FlattenFrom(1) gives [N, C·H·W].
func (t *Tensor) FlattenFrom(axis int) *Tensor { panic("TODO") }

// Transpose returns the transpose of a 2-D tensor (a copy).
func (t *Tensor) Transpose() *Tensor { panic("TODO") }

// T is Transpose.
func (t *Tensor) T() *Tensor { return t.Transpose() }

// Permute reorders the axes: out.Shape()[i] == t.Shape()[axes[i]] (a copy).
func (t *Tensor) Permute(axes ...int) *Tensor { panic("TODO") }

// IndexSelect gathers rows (slices along axis 0): out[i] = t[idx[i]].
// Indices may repeat. It works on sparse matrices too (the result is
// sparse, with no gradient).
func (t *Tensor) IndexSelect(idx []int) *Tensor { panic("TODO") }

// IndexAdd returns a copy of t with the rows of src added at rows idx:
// out[idx[i]] += src[i] (indices may repeat; additions happen in order).
// src has shape [len(idx), t.Shape()[1:]...]. Gradients flow to t and src.
func (t *Tensor) IndexAdd(idx []int, src *Tensor) *Tensor { panic("TODO") }

// ScatterAddRows returns a tensor of n rows where row r is the sum of the
// rows src[i] with idx[i] == r (the adjoint of IndexSelect).
func ScatterAddRows(src *Tensor, idx []int, n int) *Tensor { panic("TODO") }

// Concat joins tensors along axis; all other axes must match.
func Concat(axis int, ts ...*Tensor) *Tensor { panic("TODO") }

// Split cuts t along axis into pieces of the given sizes, which must add up
// to the axis length.
func (t *Tensor) Split(axis int, sizes ...int) []*Tensor { panic("TODO") }

// Narrow returns the slice [start, start+length) of t along axis (a copy).
func (t *Tensor) Narrow(axis, start, length int) *Tensor { panic("TODO") }
