package tensor

import (
	"fmt"
	"testing"
)

// naiveConv2D is the reference for Conv2D: the sum over the receptive
// field of every output pixel, in float64.
func naiveConv2D(x, w, b *Tensor, stride, padding int) *Tensor {
	n, c, h, wd := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	o, kh, kw := w.shape[0], w.shape[2], w.shape[3]
	oh, ow := (h+2*padding-kh)/stride+1, (wd+2*padding-kw)/stride+1
	out := Zeros(n, o, oh, ow)
	for img := 0; img < n; img++ {
		for f := 0; f < o; f++ {
			for oy := 0; oy < oh; oy++ {
				for ox := 0; ox < ow; ox++ {
					var s float64
					if b != nil {
						s = float64(b.data[f])
					}
					for ch := 0; ch < c; ch++ {
						for i := 0; i < kh; i++ {
							for j := 0; j < kw; j++ {
								y, xx := oy*stride-padding+i, ox*stride-padding+j
								if y >= 0 && y < h && xx >= 0 && xx < wd {
									s += float64(x.data[((img*c+ch)*h+y)*wd+xx]) * float64(w.data[((f*c+ch)*kh+i)*kw+j])
								}
							}
						}
					}
					out.data[((img*o+f)*oh+oy)*ow+ox] = float32(s)
				}
			}
		}
	}
	return out
}

// TestConv2DGeometries compares Conv2D with the direct sum over strides,
// paddings (wider than the kernel's reach included) and rectangular
// kernels and images.
func TestConv2DGeometries(t *testing.T) {
	rng := NewRNG(9)
	cases := []struct{ n, c, h, w, o, kh, kw, stride, pad int }{
		{2, 1, 28, 28, 6, 5, 5, 1, 2},
		{3, 6, 14, 14, 16, 5, 5, 1, 0},
		{1, 2, 7, 9, 3, 3, 2, 2, 1},
		{2, 3, 8, 8, 4, 3, 3, 3, 2},
		{1, 1, 3, 3, 2, 2, 2, 1, 3},
		{1, 2, 5, 6, 2, 1, 1, 2, 0},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%+v", tc)
		x := rng.Normal(0, 1, tc.n, tc.c, tc.h, tc.w)
		w := rng.Normal(0, 1, tc.o, tc.c, tc.kh, tc.kw)
		b := rng.Normal(0, 1, tc.o)
		got := Conv2D(x, w, b, tc.stride, tc.pad)
		if want := naiveConv2D(x, w, b, tc.stride, tc.pad); !AllClose(got, want, 1e-4, 1e-4) {
			t.Errorf("Conv2D(%s) differs from the direct sum", name)
		}
		if want := naiveConv2D(x, w, nil, tc.stride, tc.pad); !AllClose(Conv2D(x, w, nil, tc.stride, tc.pad), want, 1e-4, 1e-4) {
			t.Errorf("Conv2D(%s, no bias) differs from the direct sum", name)
		}
	}
}

// convGrads runs Conv2D forward and backward on a random weighting of its
// output and returns the output and the gradients of x, w and b.
func convGrads(x, w, b, r *Tensor, stride, pad int, relu bool) []*Tensor {
	in := []*Tensor{x, w, b}
	for _, t := range in {
		t.SetRequiresGrad(true)
		t.grad = nil
	}
	var y *Tensor
	if relu {
		y = Conv2DReLU(x, w, b, stride, pad)
	} else {
		y = Conv2D(x, w, b, stride, pad)
	}
	y.Mul(r).Sum().Backward()
	out := []*Tensor{y.Detach()}
	for _, t := range in {
		out = append(out, t.Grad())
		t.grad = nil
		t.SetRequiresGrad(false)
	}
	return out
}

// TestConv2DDirect compares the direct stride-1 convolution (conv.go)
// with the im2col path, output and all three gradients, and checks that
// its results are bit-identical for 1, 2 and 3 threads.
func TestConv2DDirect(t *testing.T) {
	rng := NewRNG(11)
	cases := []struct{ n, c, h, w, o, kh, kw, pad int }{
		{32, 1, 28, 28, 6, 5, 5, 2},  // LeNet-5 conv1
		{32, 6, 14, 14, 16, 5, 5, 0}, // LeNet-5 conv2
		{3, 2, 7, 9, 7, 3, 2, 1},
		{2, 5, 5, 6, 13, 3, 3, 2},
		{1, 3, 4, 4, 1, 1, 1, 0},
		{2, 4, 9, 3, 5, 3, 3, 1},
	}
	defer SetThreads(SetThreads(0))
	for _, tc := range cases {
		name := fmt.Sprintf("%+v", tc)
		x := rng.Normal(0, 1, tc.n, tc.c, tc.h, tc.w)
		w := rng.Normal(0, 1, tc.o, tc.c, tc.kh, tc.kw)
		b := rng.Normal(0, 1, tc.o)
		if _, ok := newDconv(tc.n, tc.c, tc.h, tc.w, tc.o, tc.kh, tc.kw, tc.pad, tc.pad); !ok {
			t.Fatalf("newDconv(%s) = false, want the direct path", name)
		}
		oh, ow := tc.h+2*tc.pad-tc.kh+1, tc.w+2*tc.pad-tc.kw+1
		r := rng.Normal(0, 1, tc.n, tc.o, oh, ow)
		for _, relu := range []bool{false, true} {
			convDirect = false
			want := convGrads(x, w, b, r, 1, tc.pad, relu)
			convDirect = true
			var first []*Tensor
			for _, th := range []int{1, 2, 3} {
				SetThreads(th)
				got := convGrads(x, w, b, r, 1, tc.pad, relu)
				for i, what := range []string{"output", "dx", "dw", "db"} {
					if !AllClose(got[i], want[i], 1e-4, 1e-4) {
						t.Errorf("Conv2D(%s, relu %v) direct %s differs from im2col", name, relu, what)
					}
					if first != nil && !slicesEqual(got[i].data, first[i].data) {
						t.Errorf("Conv2D(%s, relu %v) direct %s with %d threads differs from 1 thread", name, relu, what, th)
					}
				}
				if first == nil {
					first = got
				}
			}
		}
	}
}

// TestConv2DReLUFallback checks Conv2DReLU where the direct path does not
// apply (stride 2, padding beyond the kernel) against Conv2D then ReLU.
func TestConv2DReLUFallback(t *testing.T) {
	rng := NewRNG(3)
	x, w, b := rng.Normal(0, 1, 2, 3, 9, 8), rng.Normal(0, 1, 4, 3, 3, 3), rng.Normal(0, 1, 4)
	for _, sp := range [][2]int{{2, 1}, {1, 3}} {
		got := Conv2DReLU(x, w, b, sp[0], sp[1])
		if want := Conv2D(x, w, b, sp[0], sp[1]).ReLU(); !AllClose(got, want, 0, 0) {
			t.Errorf("Conv2DReLU(stride %d, padding %d) = %v, want %v", sp[0], sp[1], got, want)
		}
	}
}

func slicesEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestMaxPool2x2 checks the 2×2 stride-2 fast path of MaxPool2D against a
// direct loop, odd sizes and ties included (values on a coarse grid, so
// windows often hold equal maxima and the gradient must go to the first).
func TestMaxPool2x2(t *testing.T) {
	rng := NewRNG(5)
	for _, sz := range [][4]int{{2, 3, 8, 8}, {1, 2, 5, 7}, {3, 1, 2, 2}, {17, 1, 4, 6}} {
		n, c, h, w := sz[0], sz[1], sz[2], sz[3]
		x := rng.Normal(0, 1, n, c, h, w)
		for i, v := range x.data {
			x.data[i] = float32(int(v * 2))
		}
		oh, ow := h/2, w/2
		want, wantGrad := Zeros(n, c, oh, ow), Zeros(n, c, h, w)
		r := rng.Normal(0, 1, n, c, oh, ow)
		for pl := 0; pl < n*c; pl++ {
			for oy := 0; oy < oh; oy++ {
				for ox := 0; ox < ow; ox++ {
					bi := pl*h*w + 2*oy*w + 2*ox
					for _, q := range []int{bi + 1, bi + w, bi + w + 1} {
						if x.data[q] > x.data[bi] {
							bi = q
						}
					}
					o := (pl*oh+oy)*ow + ox
					want.data[o] = x.data[bi]
					wantGrad.data[bi] += r.data[o]
				}
			}
		}
		x.SetRequiresGrad(true)
		got := x.MaxPool2D(2, 2)
		got.Mul(r).Sum().Backward()
		if !AllClose(got, want, 0, 0) {
			t.Errorf("MaxPool2D(%v) = %v, want %v", sz, got, want)
		}
		if !AllClose(x.Grad(), wantGrad, 0, 0) {
			t.Errorf("MaxPool2D(%v) gradient = %v, want %v", sz, x.Grad(), wantGrad)
		}
	}
}

// TestReluGrad checks the rectifier's gradient kernel (assembly on amd64)
// on lengths around the vector width, zeros included.
func TestReluGrad(t *testing.T) {
	rng := NewRNG(2)
	for _, n := range []int{0, 1, 7, 8, 9, 16, 31, 100} {
		g, y := rng.Normal(0, 1, n+1).data[:n], rng.Normal(0, 1, n+1).data[:n]
		for i := 0; i < n; i += 3 {
			y[i] = 0
		}
		got := make([]float32, n)
		reluGrad(got, g, y)
		for i := range got {
			want := g[i]
			if y[i] <= 0 {
				want = 0
			}
			if got[i] != want {
				t.Errorf("reluGrad(n=%d)[%d] = %v, want %v (y %v)", n, i, got[i], want, y[i])
			}
		}
	}
}
