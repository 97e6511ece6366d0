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
