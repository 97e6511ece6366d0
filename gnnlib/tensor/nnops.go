package tensor

import "fmt"

// Dropout zeroes each element with probability p and scales the others by
// 1/(1-p) when training is true; otherwise (or with p == 0) it returns t.
// The mask comes from rng, so runs are reproducible under a seed.
func (t *Tensor) Dropout(p float32, rng *RNG, training bool) *Tensor {
	if !training || p == 0 {
		return t
	}
	start := OpStart()
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
	return NewOpSince(start, "Dropout", out, []*Tensor{t}, func(g *Tensor) []*Tensor {
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

// im2col writes, for every image and output pixel, the receptive field as
// one row: cols[(img*OH*OW + pix)*CKK + (ch*KH + i)*KW + j].
func im2col(x []float32, g convGeom) []float32 {
	ckk, ohw := g.ckk(), g.ohw()
	cols := make([]float32, g.n*ohw*ckk)
	parallelFor(g.n, 1, func(lo, hi int) {
		for img := lo; img < hi; img++ {
			for oy := 0; oy < g.oh; oy++ {
				for ox := 0; ox < g.ow; ox++ {
					row := cols[((img*g.oh+oy)*g.ow+ox)*ckk:][:ckk]
					q := 0
					for ch := 0; ch < g.c; ch++ {
						plane := x[(img*g.c+ch)*g.h*g.w:][:g.h*g.w]
						for i := 0; i < g.kh; i++ {
							y := oy*g.stride - g.padding + i
							for j := 0; j < g.kw; j++ {
								xx := ox*g.stride - g.padding + j
								if y >= 0 && y < g.h && xx >= 0 && xx < g.w {
									row[q] = plane[y*g.w+xx]
								}
								q++
							}
						}
					}
				}
			}
		}
	})
	return cols
}

// col2im is the adjoint of im2col: it sums the rows back into an image.
func col2im(cols []float32, g convGeom) []float32 {
	ckk := g.ckk()
	x := make([]float32, g.n*g.c*g.h*g.w)
	parallelFor(g.n, 1, func(lo, hi int) {
		for img := lo; img < hi; img++ {
			for oy := 0; oy < g.oh; oy++ {
				for ox := 0; ox < g.ow; ox++ {
					row := cols[((img*g.oh+oy)*g.ow+ox)*ckk:][:ckk]
					q := 0
					for ch := 0; ch < g.c; ch++ {
						plane := x[(img*g.c+ch)*g.h*g.w:][:g.h*g.w]
						for i := 0; i < g.kh; i++ {
							y := oy*g.stride - g.padding + i
							for j := 0; j < g.kw; j++ {
								xx := ox*g.stride - g.padding + j
								if y >= 0 && y < g.h && xx >= 0 && xx < g.w {
									plane[y*g.w+xx] += row[q]
								}
								q++
							}
						}
					}
				}
			}
		}
	})
	return x
}

// Conv2D is a 2-D convolution: x [N, C, H, W] (NCHW), w [O, C, KH, KW]
// (OIHW), optional bias b [O] (nil for none), the same stride and zero
// padding on both spatial axes. The output is [N, O, OH, OW] with
// OH = (H + 2·padding - KH)/stride + 1. It runs as im2col and one parallel
// MatMul over the whole batch.
func Conv2D(x, w, b *Tensor, stride, padding int) *Tensor {
	start := OpStart()
	x.mustDense("Conv2D")
	w.mustDense("Conv2D")
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
		b.mustDense("Conv2D")
		if len(b.shape) != 1 || b.shape[0] != g.o {
			panic(&ShapeError{Op: "Conv2D", A: cloneInts(w.shape), B: cloneInts(b.shape), Msg: "bias must be [O]"})
		}
	}
	ckk, ohw, rows := g.ckk(), g.ohw(), g.n*g.ohw()
	cols := im2col(x.data, g)
	// pix [N·OH·OW, O] = cols [N·OH·OW, CKK] · wᵀ [CKK, O]
	pix := make([]float32, rows*g.o)
	gemm(rows, g.o, ckk, matrix{cols, ckk, 1}, matrix{w.data, 1, ckk}, pix, g.o, false)
	out := newDense([]int{g.n, g.o, g.oh, g.ow})
	parallelFor(g.n, 1, func(lo, hi int) {
		for img := lo; img < hi; img++ {
			for o := 0; o < g.o; o++ {
				var bias float32
				if b != nil {
					bias = b.data[o]
				}
				dst := out.data[(img*g.o+o)*ohw:][:ohw]
				for p := range dst {
					dst[p] = pix[(img*ohw+p)*g.o+o] + bias
				}
			}
		}
	})
	inputs := []*Tensor{x, w}
	if b != nil {
		inputs = append(inputs, b)
	}
	return NewOpSince(start, "Conv2D", out, inputs, func(gr *Tensor) []*Tensor {
		// gp [N·OH·OW, O]: the output gradient with channels last
		gp := make([]float32, rows*g.o)
		for img := 0; img < g.n; img++ {
			for o := 0; o < g.o; o++ {
				src := gr.data[(img*g.o+o)*ohw:][:ohw]
				for p, v := range src {
					gp[(img*ohw+p)*g.o+o] = v
				}
			}
		}
		grads := make([]*Tensor, len(inputs))
		if x.RequiresGrad() { // dcols = gp · w, then fold back
			dcols := make([]float32, rows*ckk)
			gemm(rows, ckk, g.o, matrix{gp, g.o, 1}, matrix{w.data, ckk, 1}, dcols, ckk, false)
			grads[0] = &Tensor{data: col2im(dcols, g), shape: cloneInts(x.shape)}
		}
		if w.RequiresGrad() { // dw [O, CKK] = gpᵀ · cols
			dw := newDense(w.shape)
			gemm(g.o, ckk, rows, matrix{gp, 1, g.o}, matrix{cols, ckk, 1}, dw.data, ckk, false)
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
	t.mustDense(op)
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
	start := OpStart()
	g := poolGeom("MaxPool2D", t, kernel, stride)
	out := newDense([]int{g.n, g.c, g.oh, g.ow})
	arg := make([]int32, len(out.data)) // offset of the max within the plane
	hw, ohw := g.h*g.w, g.ohw()
	parallelFor(g.n*g.c, 8, func(lo, hi int) {
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
	return NewOpSince(start, "MaxPool2D", out, []*Tensor{t}, func(gr *Tensor) []*Tensor {
		d := newDense(t.shape)
		for o, q := range arg {
			d.data[(o/ohw)*hw+int(q)] += gr.data[o]
		}
		return []*Tensor{d}
	})
}

// AvgPool2D averages kernel×kernel windows of x [N, C, H, W] moved by stride
// (no padding).
func (t *Tensor) AvgPool2D(kernel, stride int) *Tensor {
	start := OpStart()
	g := poolGeom("AvgPool2D", t, kernel, stride)
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
	return NewOpSince(start, "AvgPool2D", out, []*Tensor{t}, func(gr *Tensor) []*Tensor {
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
