package tensor

// Sum returns the sum of all elements as a scalar (zero-axis) tensor.
func (t *Tensor) Sum() *Tensor { panic("TODO") }

// SumAxis sums along axis (negative counts from the end); keepdim keeps the
// reduced axis with length 1.
func (t *Tensor) SumAxis(axis int, keepdim bool) *Tensor { panic("TODO") }

// Mean returns the mean of all elements as a scalar tensor.
func (t *Tensor) Mean() *Tensor { panic("TODO") }

// MeanAxis averages along axis; keepdim keeps the reduced axis with length 1.
func (t *Tensor) MeanAxis(axis int, keepdim bool) *Tensor { panic("TODO") }

// Max returns the maximum along axis; the gradient flows to the first
// maximal element of each slice.
func (t *Tensor) Max(axis int, keepdim bool) *Tensor { panic("TODO") }

// Min returns the minimum along axis; the gradient flows to the first
// minimal element of each slice.
func (t *Tensor) Min(axis int, keepdim bool) *Tensor { panic("TODO") }

// ArgMax returns the index of the first maximum along axis for every slice,
// in row-major order of the remaining axes (for [N, C] and axis 1: one class
// per row). It records no gradient.
func (t *Tensor) ArgMax(axis int) []int { panic("TODO") }

// ArgMin is ArgMax for the minimum.
func (t *Tensor) ArgMin(axis int) []int { panic("TODO") }

// Softmax returns exp(t)/sum(exp(t)) along axis, computed stably (the max is
// subtracted first).
func (t *Tensor) Softmax(axis int) *Tensor { panic("TODO") }

// LogSoftmax returns t - logsumexp(t) along axis, computed stably.
func (t *Tensor) LogSoftmax(axis int) *Tensor { panic("TODO") }
