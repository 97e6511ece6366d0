package tensor

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend/opcode"
)

// Dropout zeroes each element with probability p and scales the others by
// 1/(1-p) when training is true; otherwise (or with p == 0) it returns t.
// The mask comes from rng, so runs are reproducible under a seed.
func (t *Tensor) Dropout(p float32, rng *RNG, training bool) *Tensor {
	if !training || p == 0 {
		return t
	}
	if t.dev != nil {
		return deviceDropout(t, p, rng)
	}
	start := opStart()
	t.mustDense("Dropout")
	if p < 0 || p >= 1 {
		panic(&ShapeError{Op: "Dropout", A: cloneInts(t.shape), Msg: fmt.Sprintf("probability %g not in [0, 1)", p)})
	}
	scale := 1 / (1 - p)
	mask := make([]float32, len(t.data))
	for i := range mask {
		if rng.Float32() >= p {
			mask[i] = scale
		}
	}
	out := newDense(t.shape)
	binKernel(opMul, out.data, t.data, mask)
	return newOpSince(start, "Dropout", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
		d := newDense(t.shape)
		binKernel(opMul, d.data, g.data, mask)
		return []*Tensor{d}
	})
}

// convGeom holds the sizes of a 2-D convolution or pooling.
type convGeom struct {
	n, c, h, w      int // input
	o, kh, kw       int // filters
	oh, ow          int // output
	stride, padding int
}

func (g convGeom) ckk() int { return g.c * g.kh * g.kw }
func (g convGeom) ohw() int { return g.oh * g.ow }

// im2col writes the receptive fields of one image x [C, H, W] as a
// [CKK, OH·OW] matrix: cols[((ch*KH + i)*KW + j)*OH*OW + oy*OW + ox] is
// the input at (ch, oy·stride - padding + i, ox·stride - padding + j), or
// 0 in the padding. With this layout a convolution is W [O, CKK] · cols,
// whose output is already in NCHW order, and each row of cols is filled
// from contiguous runs of the input.
func im2col(cols, x []float32, g convGeom) {
	ohw := g.ohw()
	for ch := 0; ch < g.c; ch++ {
		plane := x[ch*g.h*g.w : (ch+1)*g.h*g.w]
		for i := 0; i < g.kh; i++ {
			for j := 0; j < g.kw; j++ {
				row := cols[((ch*g.kh+i)*g.kw+j)*ohw:][:ohw]
				// ox in [lo, hi) reads inside the image.
				lo, hi := colRange(j, g.padding, g.stride, g.w, g.ow)
				for oy := 0; oy < g.oh; oy++ {
					out := row[oy*g.ow : (oy+1)*g.ow]
					y := oy*g.stride - g.padding + i
					if y < 0 || y >= g.h || lo >= hi {
						clear(out)
						continue
					}
					clear(out[:lo])
					clear(out[hi:])
					src := plane[y*g.w:][:g.w]
					x0 := lo*g.stride - g.padding + j
					if g.stride == 1 {
						copy(out[lo:hi], src[x0:x0+hi-lo])
						continue
					}
					for ox := lo; ox < hi; ox++ {
						out[ox] = src[x0]
						x0 += g.stride
					}
				}
			}
		}
	}
}

// colRange returns the output columns [lo, hi) whose input column
// ox·stride - padding + j lies in [0, w).
func colRange(j, padding, stride, w, ow int) (lo, hi int) {
	// smallest ox with ox·stride >= padding - j
	if d := padding - j; d > 0 {
		lo = (d + stride - 1) / stride
	}
	// ox·stride - padding + j <= w - 1
	hi = (w-1+padding-j)/stride + 1
	if w-1+padding-j < 0 {
		hi = 0
	}
	hi = min(hi, ow)
	lo = min(lo, hi)
	return lo, hi
}

// col2im is the adjoint of im2col for one image: it adds the rows of cols
// [CKK, OH·OW] back into x [C, H, W].
func col2im(x, cols []float32, g convGeom) {
	ohw := g.ohw()
	for ch := 0; ch < g.c; ch++ {
		plane := x[ch*g.h*g.w : (ch+1)*g.h*g.w]
		for i := 0; i < g.kh; i++ {
			for j := 0; j < g.kw; j++ {
				row := cols[((ch*g.kh+i)*g.kw+j)*ohw:][:ohw]
				lo, hi := colRange(j, g.padding, g.stride, g.w, g.ow)
				for oy := 0; oy < g.oh; oy++ {
					y := oy*g.stride - g.padding + i
					if y < 0 || y >= g.h || lo >= hi {
						continue
					}
					in := row[oy*g.ow+lo : oy*g.ow+hi]
					dst := plane[y*g.w:][:g.w]
					x0 := lo*g.stride - g.padding + j
					if g.stride == 1 {
						dst = dst[x0 : x0+len(in)]
						for q, v := range in {
							dst[q] += v
						}
						continue
					}
					for _, v := range in {
						dst[x0] += v
						x0 += g.stride
					}
				}
			}
		}
	}
}

// Conv2D is a 2-D convolution: x [N, C, H, W] (NCHW), w [O, C, KH, KW]
// (OIHW), optional bias b [O] (nil for none), the same stride and zero
// padding on both spatial axes. The output is [N, O, OH, OW] with
// OH = (H + 2·padding - KH)/stride + 1. Each image runs as im2col and one
// matrix product W [O, CKK] · cols [CKK, OH·OW], the images in parallel.
func Conv2D(x, w, b *Tensor, stride, padding int) *Tensor {
	return conv2D(x, w, b, stride, padding, false)
}

// Conv2DReLU is Conv2D(x, w, b, stride, padding).ReLU() as one op (named
// "Conv2DReLU"): for stride 1 the rectifier is applied while the output
// is written and its gradient mask while the gradient is read, which saves
// two passes over the largest activations of a CNN and their buffers.
// Other strides run the two ops.
func Conv2DReLU(x, w, b *Tensor, stride, padding int) *Tensor {
	return conv2D(x, w, b, stride, padding, true)
}

func conv2D(x, w, b *Tensor, stride, padding int, relu bool) *Tensor {
	start := opStart()
	onDev := x.dev != nil || w.dev != nil || (b != nil && b.dev != nil)
	if !onDev {
		x.mustDense("Conv2D")
		w.mustDense("Conv2D")
	}
	if len(x.shape) != 4 || len(w.shape) != 4 || x.shape[1] != w.shape[1] {
		panic(&ShapeError{Op: "Conv2D", A: cloneInts(x.shape), B: cloneInts(w.shape), Msg: "needs x [N, C, H, W] and w [O, C, KH, KW]"})
	}
	if stride < 1 || padding < 0 {
		panic(&ShapeError{Op: "Conv2D", A: cloneInts(x.shape), B: cloneInts(w.shape), Msg: fmt.Sprintf("bad stride %d or padding %d", stride, padding)})
	}
	g := convGeom{n: x.shape[0], c: x.shape[1], h: x.shape[2], w: x.shape[3],
		o: w.shape[0], kh: w.shape[2], kw: w.shape[3], stride: stride, padding: padding}
	g.oh = (g.h+2*padding-g.kh)/stride + 1
	g.ow = (g.w+2*padding-g.kw)/stride + 1
	if g.oh < 1 || g.ow < 1 {
		panic(&ShapeError{Op: "Conv2D", A: cloneInts(x.shape), B: cloneInts(w.shape), Msg: "kernel larger than padded input"})
	}
	if b != nil {
		if !onDev {
			b.mustDense("Conv2D")
		}
		if len(b.shape) != 1 || b.shape[0] != g.o {
			panic(&ShapeError{Op: "Conv2D", A: cloneInts(w.shape), B: cloneInts(b.shape), Msg: "bias must be [O]"})
		}
	}
	if onDev { // im2col and a product; a ReLU after is its own op
		out := deviceConv2D(start, x, w, b, g)
		if relu {
			return out.ReLU()
		}
		return out
	}
	if stride == 1 && convDirect {
		if d, ok := newDconv(g.n, g.c, g.h, g.w, g.o, g.kh, g.kw, padding, padding); ok {
			return conv2DDirect(start, x, w, b, d, relu)
		}
	}
	if relu {
		return conv2D(x, w, b, stride, padding, false).ReLU()
	}
	ckk, ohw, chw := g.ckk(), g.ohw(), g.c*g.h*g.w
	colSize := ckk * ohw
	// The columns of every image are kept for the weight gradient.
	cols := make([]float32, g.n*colSize)
	out := newDense([]int{g.n, g.o, g.oh, g.ow})
	parallelFor(g.n, 1, func(lo, hi int) {
		for img := lo; img < hi; img++ {
			c := cols[img*colSize : (img+1)*colSize]
			im2col(c, x.data[img*chw:(img+1)*chw], g)
			dst := out.data[img*g.o*ohw : (img+1)*g.o*ohw]
			if b != nil { // start from the bias, then add W·cols
				for o := 0; o < g.o; o++ {
					row := dst[o*ohw : (o+1)*ohw]
					for p := range row {
						row[p] = b.data[o]
					}
				}
			}
			gemmSerial(g.o, ohw, ckk, matrix{w.data, ckk, 1}, matrix{c, ohw, 1}, dst, ohw, b != nil)
		}
	})
	inputs := []*Tensor{x, w}
	if b != nil {
		inputs = append(inputs, b)
	}
	return newOpSince(start, "Conv2D", out, inputs, func(gr *Tensor) []*Tensor {
		grads := make([]*Tensor, len(inputs))
		if x.RequiresGrad() { // dcols = Wᵀ · G per image, then fold back
			dx := newDense(x.shape)
			parallelFor(g.n, 1, func(lo, hi int) {
				dcols := make([]float32, colSize)
				for img := lo; img < hi; img++ {
					gemmSerial(ckk, ohw, g.o, matrix{w.data, 1, ckk}, matrix{gr.data[img*g.o*ohw:], ohw, 1}, dcols, ohw, false)
					col2im(dx.data[img*chw:(img+1)*chw], dcols, g)
				}
			})
			grads[0] = dx
		}
		if w.RequiresGrad() { // dW [O, CKK] = Σ_img G_img · cols_imgᵀ
			// One product per image in parallel, then a sum in image
			// order, so the result does not depend on the thread count.
			size := g.o * ckk
			parts := make([]float32, g.n*size)
			parallelFor(g.n, 1, func(lo, hi int) {
				for img := lo; img < hi; img++ {
					gemmSerial(g.o, ckk, ohw, matrix{gr.data[img*g.o*ohw:], ohw, 1}, matrix{cols[img*colSize:], 1, ohw}, parts[img*size:], ckk, false)
				}
			})
			dw := newDense(w.shape)
			for img := 0; img < g.n; img++ {
				for q, v := range parts[img*size : (img+1)*size] {
					dw.data[q] += v
				}
			}
			grads[1] = dw
		}
		if b != nil && b.RequiresGrad() {
			db := newDense(b.shape)
			for img := 0; img < g.n; img++ {
				for o := 0; o < g.o; o++ {
					var s float32
					for _, v := range gr.data[(img*g.o+o)*ohw:][:ohw] {
						s += v
					}
					db.data[o] += s
				}
			}
			grads[2] = db
		}
		return grads
	})
}

func poolGeom(op string, t *Tensor, kernel, stride int) convGeom {
	if t.dev == nil {
		t.mustDense(op)
	}
	if len(t.shape) != 4 {
		panic(&ShapeError{Op: op, A: cloneInts(t.shape), Msg: "needs [N, C, H, W]"})
	}
	if kernel < 1 || stride < 1 || kernel > t.shape[2] || kernel > t.shape[3] {
		panic(&ShapeError{Op: op, A: cloneInts(t.shape), B: []int{kernel, stride}, Msg: "bad kernel or stride"})
	}
	g := convGeom{n: t.shape[0], c: t.shape[1], h: t.shape[2], w: t.shape[3], kh: kernel, kw: kernel, stride: stride}
	g.oh = (g.h-kernel)/stride + 1
	g.ow = (g.w-kernel)/stride + 1
	return g
}

// MaxPool2D takes the maximum over kernel×kernel windows of x [N, C, H, W]
// moved by stride (no padding); the gradient goes to the first maximum.
func (t *Tensor) MaxPool2D(kernel, stride int) *Tensor {
	start := opStart()
	g := poolGeom("MaxPool2D", t, kernel, stride)
	if t.dev != nil {
		return devicePool(start, "MaxPool2D", opcode.PoolMax, t, g)
	}
	out := newDense([]int{g.n, g.c, g.oh, g.ow})
	arg := make([]int32, len(out.data)) // offset of the max within the plane
	hw, ohw := g.h*g.w, g.ohw()
	parallelFor(g.n*g.c, 8, func(lo, hi int) {
		if kernel == 2 && stride == 2 {
			maxPool2x2(out.data[lo*ohw:hi*ohw], arg[lo*ohw:hi*ohw], t.data[lo*hw:hi*hw], g)
			return
		}
		for pl := lo; pl < hi; pl++ {
			src := t.data[pl*hw:][:hw]
			for oy := 0; oy < g.oh; oy++ {
				for ox := 0; ox < g.ow; ox++ {
					bi := oy*stride*g.w + ox*stride
					best := src[bi]
					for i := 0; i < kernel; i++ {
						for j := 0; j < kernel; j++ {
							q := (oy*stride+i)*g.w + ox*stride + j
							if src[q] > best {
								best, bi = src[q], q
							}
						}
					}
					o := pl*ohw + oy*g.ow + ox
					out.data[o], arg[o] = best, int32(bi)
				}
			}
		}
	})
	return newOpSince(start, "MaxPool2D", out, []*Tensor{t}, func(gr *Tensor) []*Tensor {
		d := newDense(t.shape)
		parallelFor(g.n*g.c, 8, func(lo, hi int) {
			for pl := lo; pl < hi; pl++ {
				dst := d.data[pl*hw:][:hw]
				src := gr.data[pl*ohw:][:ohw]
				for o, q := range arg[pl*ohw:][:ohw] {
					dst[q] += src[o]
				}
			}
		})
		return []*Tensor{d}
	})
}

// AvgPool2D averages kernel×kernel windows of x [N, C, H, W] moved by stride
// (no padding).
func (t *Tensor) AvgPool2D(kernel, stride int) *Tensor {
	start := opStart()
	g := poolGeom("AvgPool2D", t, kernel, stride)
	if t.dev != nil {
		return devicePool(start, "AvgPool2D", opcode.PoolAvg, t, g)
	}
	out := newDense([]int{g.n, g.c, g.oh, g.ow})
	hw, ohw := g.h*g.w, g.ohw()
	inv := 1 / float32(kernel*kernel)
	parallelFor(g.n*g.c, 8, func(lo, hi int) {
		for pl := lo; pl < hi; pl++ {
			src := t.data[pl*hw:][:hw]
			for oy := 0; oy < g.oh; oy++ {
				for ox := 0; ox < g.ow; ox++ {
					var s float32
					for i := 0; i < kernel; i++ {
						row := src[(oy*stride+i)*g.w+ox*stride:][:kernel]
						for _, v := range row {
							s += v
						}
					}
					out.data[pl*ohw+oy*g.ow+ox] = s * inv
				}
			}
		}
	})
	return newOpSince(start, "AvgPool2D", out, []*Tensor{t}, func(gr *Tensor) []*Tensor {
		d := newDense(t.shape)
		for pl := 0; pl < g.n*g.c; pl++ {
			dst := d.data[pl*hw:][:hw]
			for oy := 0; oy < g.oh; oy++ {
				for ox := 0; ox < g.ow; ox++ {
					v := gr.data[pl*ohw+oy*g.ow+ox] * inv
					for i := 0; i < kernel; i++ {
						row := dst[(oy*stride+i)*g.w+ox*stride:][:kernel]
						for j := range row {
							row[j] += v
						}
					}
				}
			}
		}
		return []*Tensor{d}
	})
}

// maxPool2x2 is MaxPool2D's forward pass for 2×2 windows with stride 2 over
// whole planes: out and arg [planes, OH, OW], x [planes, H, W]. The
// comparisons select without branches (the compiler turns them into
// conditional moves), since on activations the winner is unpredictable.
// Ties go to the first maximum in row-major window order, as in the
// general loop.
func maxPool2x2(out []float32, arg []int32, x []float32, g convGeom) {
	hw, ohw := g.h*g.w, g.ohw()
	for pl := 0; pl*ohw < len(out); pl++ {
		src := x[pl*hw:][:hw]
		for oy := 0; oy < g.oh; oy++ {
			r0 := src[2*oy*g.w:][:g.w]
			r1 := src[(2*oy+1)*g.w:][:g.w]
			o := out[pl*ohw+oy*g.ow:][:g.ow]
			a := arg[pl*ohw+oy*g.ow:][:g.ow]
			base := int32(2 * oy * g.w)
			w := int32(g.w)
			for ox := range o {
				v0, v1, v2, v3 := r0[2*ox], r0[2*ox+1], r1[2*ox], r1[2*ox+1]
				q := base + int32(2*ox)
				// top pair, bottom pair, then the two winners
				i01, i23 := q, q+w
				if v1 > v0 {
					i01 = q + 1
				}
				if v3 > v2 {
					i23 = q + w + 1
				}
				m01, m23 := max(v0, v1), max(v2, v3)
				bi := i01
				if m23 > m01 {
					bi = i23
				}
				o[ox], a[ox] = max(m01, m23), bi
			}
		}
	}
}
