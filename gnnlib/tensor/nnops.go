package tensor

// Dropout zeroes each element with probability p and scales the others by
// 1/(1-p) when training is true; otherwise (or with p == 0) it returns t.
// The mask comes from rng, so runs are reproducible under a seed.
func (t *Tensor) Dropout(p float32, rng *RNG, training bool) *Tensor { panic("TODO") }

// Conv2D is a 2-D convolution: x [N, C, H, W] (NCHW), w [O, C, KH, KW]
// (OIHW), optional bias b [O] (nil for none), the same stride and zero
// padding on both spatial axes. The output is [N, O, OH, OW] with
// OH = (H + 2·padding - KH)/stride + 1. It runs as im2col + MatMul, in
// parallel over the batch.
func Conv2D(x, w, b *Tensor, stride, padding int) *Tensor { panic("TODO") }

// MaxPool2D takes the maximum over kernel×kernel windows of x [N, C, H, W]
// moved by stride (no padding); the gradient goes to the first maximum.
func (t *Tensor) MaxPool2D(kernel, stride int) *Tensor { panic("TODO") }

// AvgPool2D averages kernel×kernel windows of x [N, C, H, W] moved by stride
// (no padding).
func (t *Tensor) AvgPool2D(kernel, stride int) *Tensor { panic("TODO") }
