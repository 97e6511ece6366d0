package tensor

import (
	"math"
	"math/bits"
	"sync"
	"time"
)

// This file is the direct (implicit im2col) convolution that Conv2D uses
// for stride 1 and padding below the kernel size, which covers LeNet-5 and
// most small CNNs. Each image is copied once into a zero-padded buffer
// xp [C, HP, WP]. Output pixels are then computed on a "virtual" grid of
// OH rows of WP columns (the WP - OW columns on the right are discarded):
// on that grid, the input under filter tap (ch, i, j) of output position q
// is xp[q + off], with off = ch·HP·WP + i·WP + j independent of q. So row
// k of the im2col matrix is just xp shifted by off[k], and the 6×16
// micro-kernel reads it in place (convKernel6x16AVX2 takes the offset
// table) instead of reading a copied and packed cols matrix.
//
// The same picture gives the backward pass without any im2col either:
//
//   - the weight gradient dW[o, k] is the dot product of the output
//     gradient of channel o (padded to the virtual grid with zeros) with
//     xp shifted by off[k], summed over the batch (dotKernel4x3AVX2);
//   - the input gradient is the "full" correlation of the output gradient
//     with the flipped, channel-transposed filters, which is again a direct
//     convolution with padding KH-1-padding, run by the forward code.
//
// All three loop over images or output blocks in a fixed order, so
// results do not depend on the thread count.

// convDirect enables the direct path; tests switch it off to compare
// with the im2col one.
var convDirect = true

const (
	convTile = nr // output pixels per micro-kernel tile
	dotRows  = 4  // rows of A (output channels) per dot kernel call
	dotCols  = 3  // rows of B (filter taps) per dot kernel call
	dotLanes = 8  // partial sums per dot product (one YMM register)
)

// dconv is the geometry of a stride-1 direct convolution.
type dconv struct {
	n, c, h, w int     // input
	o, kh, kw  int     // filters
	ph, pw     int     // zero padding
	hp, wp     int     // padded input
	oh, ow     int     // output
	l          int     // virtual grid length per channel: oh·wp rounded up to convTile
	plane      int     // floats per padded image, with slack for the last tile's reads
	off        []int32 // off[(ch·kh + i)·kw + j] = ch·hp·wp + i·wp + j
}

// newDconv returns the geometry, or ok false when the direct path does not
// apply: padding not below the kernel (the input gradient would need
// negative padding) or offsets beyond int32.
func newDconv(n, c, h, w, o, kh, kw, ph, pw int) (d *dconv, ok bool) {
	if ph > kh-1 || pw > kw-1 || ph < 0 || pw < 0 {
		return nil, false
	}
	d = &dconv{n: n, c: c, h: h, w: w, o: o, kh: kh, kw: kw, ph: ph, pw: pw}
	d.hp, d.wp = h+2*ph, w+2*pw
	d.oh, d.ow = d.hp-kh+1, d.wp-kw+1
	if d.oh < 1 || d.ow < 1 {
		return nil, false
	}
	d.l = (d.oh*d.wp + convTile - 1) / convTile * convTile
	maxOff := (c-1)*d.hp*d.wp + (kh-1)*d.wp + kw - 1
	d.plane = (max(c*d.hp*d.wp, d.l+maxOff) + convTile - 1) / convTile * convTile
	if int64(d.plane) > math.MaxInt32 {
		return nil, false
	}
	d.off = make([]int32, c*kh*kw)
	for ch := 0; ch < c; ch++ {
		for i := 0; i < kh; i++ {
			for j := 0; j < kw; j++ {
				d.off[(ch*kh+i)*kw+j] = int32(ch*d.hp*d.wp + i*d.wp + j)
			}
		}
	}
	return d, true
}

func (d *dconv) ckk() int { return d.c * d.kh * d.kw }

// pad copies one image x [C, H, W] into xp [plane], which must be zero.
func (d *dconv) pad(xp, x []float32) {
	for ch := 0; ch < d.c; ch++ {
		for y := 0; y < d.h; y++ {
			dst := xp[(ch*d.hp+y+d.ph)*d.wp+d.pw:][:d.w]
			copy(dst, x[(ch*d.h+y)*d.w:][:d.w])
		}
	}
}

// packFilters packs w [O, CKK] into micro-panels of mr rows (zero rows
// past O), the A operand layout of the micro-kernel.
func packFilters(w []float32, o, ckk int) []float32 {
	panels := (o + mr - 1) / mr
	ap := make([]float32, panels*mr*ckk)
	for r := 0; r < o; r++ {
		panel := ap[(r/mr)*mr*ckk:]
		for k, v := range w[r*ckk : (r+1)*ckk] {
			panel[k*mr+r%mr] = v
		}
	}
	return ap
}

// forward computes out [N, O, OH, OW] = conv(x) (+ bias), rectified if
// relu, into out from the padded images xp [N][plane] and the packed
// filters ap, in parallel over images.
func (d *dconv) forward(out, xp, ap, bias []float32, relu bool) {
	ckk, ohw, panels := d.ckk(), d.oh*d.ow, (d.o+mr-1)/mr
	// The biases per micro-panel of filters (zero past O), which the
	// kernel starts its sums from.
	bp := make([]float32, panels*mr)
	copy(bp, bias)
	parallelFor(d.n, 1, func(lo, hi int) {
		tmp := make([]float32, panels*mr*d.l)
		for img := lo; img < hi; img++ {
			src := xp[img*d.plane : (img+1)*d.plane]
			for r := 0; r < panels; r++ {
				a := ap[r*mr*ckk : (r+1)*mr*ckk]
				c := tmp[r*mr*d.l:]
				for t := 0; t < d.l; t += convTile {
					convKernel(ckk, a, src[t:], d.off, c[t:], d.l, bp[r*mr:], relu)
				}
			}
			// Keep the first OW of every WP columns of the virtual grid.
			dst := out[img*d.o*ohw : (img+1)*d.o*ohw]
			for o := 0; o < d.o; o++ {
				for y := 0; y < d.oh; y++ {
					copy(dst[o*ohw+y*d.ow:][:d.ow], tmp[o*d.l+y*d.wp:][:d.ow])
				}
			}
		}
	})
}

// weightGrad returns dW [O, CKK] = Σ_img Σ_q G[img, o, q]·xp[img][q + off[k]]
// for the output gradient gr [N, O, OH, OW] and the padded inputs xp.
func (d *dconv) weightGrad(gr, xp []float32) []float32 {
	ckk, ohw := d.ckk(), d.oh*d.ow
	orows := (d.o + dotRows - 1) / dotRows * dotRows
	// The gradient on the virtual grid: zero in the discarded columns and
	// in the rows past O, so they add nothing.
	gpb := getScratch(d.n * orows * d.l)
	defer putScratch(gpb)
	gp := *gpb
	parallelFor(d.n, 4, func(lo, hi int) {
		for img := lo; img < hi; img++ {
			for o := 0; o < d.o; o++ {
				dst := gp[(img*orows+o)*d.l:]
				src := gr[(img*d.o+o)*ohw:]
				for y := 0; y < d.oh; y++ {
					copy(dst[y*d.wp:][:d.ow], src[y*d.ow:][:d.ow])
				}
			}
		}
	})
	// Taps padded to a multiple of dotCols by repeating the last one,
	// whose extra sums are dropped.
	kpad := (ckk + dotCols - 1) / dotCols * dotCols
	off := make([]int32, kpad)
	for k := range off {
		off[k] = d.off[min(k, ckk-1)]
	}
	dw := make([]float32, d.o*ckk)
	oblocks, kblocks := orows/dotRows, kpad/dotCols
	parallelFor(oblocks*kblocks, 1, func(lo, hi int) {
		var part [dotRows * dotCols * dotLanes]float32
		for blk := lo; blk < hi; blk++ {
			o0, k0 := blk/kblocks*dotRows, blk%kblocks*dotCols
			dotKernel(d.l/dotLanes, d.n, gp[o0*d.l:], d.l, orows*d.l, xp, d.plane, off[k0:k0+dotCols], &part)
			for r := 0; r < dotRows; r++ {
				for kk := 0; kk < dotCols; kk++ {
					if o0+r >= d.o || k0+kk >= ckk {
						continue
					}
					p := part[(r*dotCols+kk)*dotLanes:][:dotLanes]
					dw[(o0+r)*ckk+k0+kk] = ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]))
				}
			}
		}
	})
	return dw
}

// inputGrad returns dx [N, C, H, W] for the output gradient gr and the
// filters w [O, C, KH, KW]: the direct convolution of gr, padded by
// KH-1-ph and KW-1-pw, with the filters flipped in space and with input
// and output channels swapped.
func (d *dconv) inputGrad(gr, w []float32) []float32 {
	t, _ := newDconv(d.n, d.o, d.oh, d.ow, d.c, d.kh, d.kw, d.kh-1-d.ph, d.kw-1-d.pw)
	flip := make([]float32, len(w))
	for o := 0; o < d.o; o++ {
		for ch := 0; ch < d.c; ch++ {
			for i := 0; i < d.kh; i++ {
				for j := 0; j < d.kw; j++ {
					flip[((ch*d.o+o)*d.kh+i)*d.kw+j] = w[((o*d.c+ch)*d.kh+d.kh-1-i)*d.kw+d.kw-1-j]
				}
			}
		}
	}
	gpb := getScratch(t.n * t.plane)
	defer putScratch(gpb)
	gp := *gpb
	ohw := d.oh * d.ow
	parallelFor(t.n, 4, func(lo, hi int) {
		for img := lo; img < hi; img++ {
			t.pad(gp[img*t.plane:(img+1)*t.plane], gr[img*d.o*ohw:(img+1)*d.o*ohw])
		}
	})
	dx := make([]float32, d.n*d.c*d.h*d.w)
	t.forward(dx, gp, packFilters(flip, d.c, t.ckk()), nil, false)
	return dx
}

// conv2DDirect is Conv2D (and Conv2DReLU when relu) for stride 1 on the
// geometry d (see the top of this file).
func conv2DDirect(start time.Time, x, w, b *Tensor, d *dconv, relu bool) *Tensor {
	chw := d.c * d.h * d.w
	xp := make([]float32, d.n*d.plane)
	parallelFor(d.n, 4, func(lo, hi int) {
		for img := lo; img < hi; img++ {
			d.pad(xp[img*d.plane:(img+1)*d.plane], x.data[img*chw:(img+1)*chw])
		}
	})
	out := newDense([]int{d.n, d.o, d.oh, d.ow})
	var bias []float32
	if b != nil {
		bias = b.data
	}
	d.forward(out.data, xp, packFilters(w.data, d.o, d.ckk()), bias, relu)
	inputs := []*Tensor{x, w}
	if b != nil {
		inputs = append(inputs, b)
	}
	name := "Conv2D"
	if relu {
		name = "Conv2DReLU"
	}
	return newOpSince(start, name, out, inputs, func(gr *Tensor) []*Tensor {
		g := gr.data
		if relu { // the gradient through the rectifier: zero where out <= 0
			mb := getScratch(len(g))
			defer putScratch(mb)
			m := *mb
			parallelFor(len(m), elemGrain, func(lo, hi int) {
				reluGrad(m[lo:hi], g[lo:hi], out.data[lo:hi])
			})
			g = m
		}
		grads := make([]*Tensor, len(inputs))
		if x.RequiresGrad() {
			grads[0] = &Tensor{data: d.inputGrad(g, w.data), shape: cloneInts(x.shape)}
		}
		if w.RequiresGrad() {
			grads[1] = &Tensor{data: d.weightGrad(g, xp), shape: cloneInts(w.shape)}
		}
		if b != nil && b.RequiresGrad() {
			grads[2] = biasGrad(g, d.n, d.o, d.oh*d.ow, b.shape)
		}
		return grads
	})
}

// reluGradGo is reluGrad in Go, through a bit mask rather than a branch
// (the signs are unpredictable).
func reluGradGo(dst, g, y []float32) {
	g, y = g[:len(dst)], y[:len(dst)]
	for i, gv := range g {
		var m uint32
		if y[i] > 0 {
			m = ^uint32(0)
		}
		dst[i] = math.Float32frombits(math.Float32bits(gv) & m)
	}
}

// biasGrad sums the output gradient gr [N, O, OHW] over images and pixels,
// channels in parallel, each in a fixed order (eight running sums per
// image, which break the dependency chain of one sum).
func biasGrad(gr []float32, n, o, ohw int, shape []int) *Tensor {
	db := newDense(shape)
	parallelFor(o, 1, func(lo, hi int) {
		for f := lo; f < hi; f++ {
			var total float32
			for img := 0; img < n; img++ {
				total += sum8(gr[(img*o+f)*ohw:][:ohw])
			}
			db.data[f] = total
		}
	})
	return db
}

// sum8 adds x with eight running sums.
func sum8(x []float32) float32 {
	var s [8]float32
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		s[0] += v[0]
		s[1] += v[1]
		s[2] += v[2]
		s[3] += v[3]
		s[4] += v[4]
		s[5] += v[5]
		s[6] += v[6]
		s[7] += v[7]
	}
	for ; i < len(x); i++ {
		s[0] += x[i]
	}
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
}

// scratchPools recycle the large temporary buffers of the convolution's
// backward pass, one pool per power-of-two size class (so the buffers of
// two layers do not evict each other): allocating them fresh per batch
// costs as much as the arithmetic (zeroing new memory, and garbage
// collections whose preemption stops the kernels).
var scratchPools [48]sync.Pool

// getScratch returns a zeroed buffer of n floats; hand it back with
// putScratch.
func getScratch(n int) *[]float32 {
	class := bits.Len(uint(n))
	if p, ok := scratchPools[class].Get().(*[]float32); ok {
		*p = (*p)[:n]
		clear(*p)
		return p
	}
	b := make([]float32, n, 1<<class)
	return &b
}

// putScratch returns a buffer from getScratch to its pool.
func putScratch(p *[]float32) { scratchPools[bits.Len(uint(cap(*p)))-1].Put(p) }

// convKernelGo is convKernel6x16AVX2 in Go: the mr×nr tile
// c[i·ldc + j] = bias[i] + Σ_k a[k·mr + i]·b[off[k] + j], rectified if relu.
func convKernelGo(kb int, a, b []float32, off []int32, c []float32, ldc int, bias []float32, relu bool) {
	var acc [mr][nr]float32
	for i := range acc {
		for j := range acc[i] {
			acc[i][j] = bias[i]
		}
	}
	for k := 0; k < kb; k++ {
		av := a[k*mr : k*mr+mr : k*mr+mr]
		bv := b[off[k] : off[k]+nr : off[k]+nr]
		for i, ai := range av {
			row := &acc[i]
			for j, bj := range bv {
				row[j] += ai * bj
			}
		}
	}
	for i := range acc {
		if relu {
			for j, v := range acc[i] {
				acc[i][j] = max(v, 0)
			}
		}
		copy(c[i*ldc:i*ldc+nr], acc[i][:])
	}
}

// dotKernelGo is dotKernel4x3AVX2 in Go, with the same lane-wise partial
// sums.
func dotKernelGo(n8, imgs int, a []float32, lda, astride int, b []float32, bstride int, off []int32, out *[dotRows * dotCols * dotLanes]float32) {
	clear(out[:])
	n := n8 * dotLanes
	for img := 0; img < imgs; img++ {
		for r := 0; r < dotRows; r++ {
			arow := a[img*astride+r*lda:][:n]
			for kk := 0; kk < dotCols; kk++ {
				brow := b[img*bstride+int(off[kk]):][:n]
				p := out[(r*dotCols+kk)*dotLanes:][:dotLanes]
				for q := 0; q < n; q += dotLanes {
					for ln := range p {
						p[ln] += arow[q+ln] * brow[q+ln]
					}
				}
			}
		}
	}
}
