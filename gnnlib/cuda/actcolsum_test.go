package cuda

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/internal/half"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// TestActColSumBF16 checks tune.BF16ActColSum's kernels
// (act_backward_colsum_bf16, and its _v8 form for widths a multiple of 8
// with tune.BF16Vec8, through the backend's ReLUDropoutGradColSum of
// bfloat16 storage) against the two kernels they replace on the device:
// the gradient bit for bit act_backward_bf16's, the column sums
// col_sum_bf16's of that gradient to the float32 rounding of sums in
// another order, over activations with zeros (ReLU) and dropped values.
func TestActColSumBF16(t *testing.T) {
	d := bf16OrSkip(t)
	r := rand.New(rand.NewPCG(43, 44))
	for _, sh := range [][2]int{{1, 1}, {3, 47}, {1000, 256}, {37, 8}, {500, 264}, {169_343, 256}} {
		rows, cols := sh[0], sh[1]
		_, gh := bf16Operand(r, rows*cols)
		yv, yh := bf16Operand(r, rows*cols)
		for i, v := range yv {
			if v < 0 || r.IntN(4) == 0 { // ReLU's zeros, dropped values
				yh[i] = 0
			}
		}
		g, err := d.BF16FromHost(gh, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		y, err := d.BF16FromHost(yh, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		const p = 0.25
		want, err := d.EmptyBF16(rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		if err := ActBackwardBF16(want, y, g, true, p); err != nil {
			t.Fatal(err)
		}
		wantSum := poisoned(t, d, 1, cols)
		if err := ColSumBF16(wantSum, want); err != nil {
			t.Fatal(err)
		}
		gs, ss, err := d.be.ReLUDropoutGradColSum(tbackend.FromStorage(g, rows, cols), tbackend.FromStorage(y, rows, cols), p)
		if err != nil {
			t.Fatal(err)
		}
		if dt := tbackend.FromStorage(gs, rows, cols).DType(); dt != tensor.BFloat16 {
			t.Fatalf("ReLUDropoutGradColSum of bfloat16 storage gave a %v gradient", dt)
		}
		a, err := want.Host()
		if err != nil {
			t.Fatal(err)
		}
		b, err := gs.(*BF16Tensor).Host()
		if err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%dx%d: gradient %d is %#04x, act_backward_bf16's %#04x", rows, cols, i, b[i], a[i])
			}
		}
		ws, gotSum := host(t, wantSum), host(t, ss.(*Tensor))
		for j := range cols {
			var abs float64
			for i := range rows {
				abs += math.Abs(float64(half.BF16(a[i*cols+j]).Float32()))
			}
			// Both sum float32 values of the same rounded gradient: 512-row
			// chunks in order (col_sum_bf16), or 32-row strides of
			// 256-row chunks added across 8 warps (the _v8 kernel),
			// then atomically across chunks in no fixed order.
			if e := math.Abs(float64(gotSum[j] - ws[j])); !(e <= float64(512+rows/256+2)*6e-8*abs+1e-30) {
				t.Errorf("%dx%d: column sum %d is %v, col_sum_bf16's %v", rows, cols, j, gotSum[j], ws[j])
			}
		}
		for _, x := range []*BF16Tensor{g, y, want, gs.(*BF16Tensor)} {
			x.Free()
		}
	}
}

// TestBiasActBF16Vec8 checks tune.BF16Vec8's bias_act_bf16_v8 against
// bias_act_bf16 on the device: the same bits for widths a multiple of 8,
// with and without a bias, ReLU and dropout, out of place and in place.
func TestBiasActBF16Vec8(t *testing.T) {
	d := bf16OrSkip(t)
	defer func(on bool) { tune.BF16Vec8 = on }(tune.BF16Vec8)
	r := rand.New(rand.NewPCG(53, 54))
	for _, sh := range [][2]int{{1, 8}, {1001, 24}, {169_343, 256}} {
		rows, cols := sh[0], sh[1]
		_, xh := bf16Operand(r, rows*cols)
		bias := randSlice(r, cols)
		b := mustT(t, d, bias, 1, cols)
		for _, c := range []struct {
			relu  bool
			p     float32
			b     *Tensor
			place bool
		}{{true, 0, b, false}, {true, 0.5, b, true}, {false, 0.3, nil, false}, {false, 0, b, true}} {
			var out [2][]uint16
			for i, vec := range []bool{false, true} {
				tune.BF16Vec8 = vec
				x, err := d.BF16FromHost(xh, rows, cols)
				if err != nil {
					t.Fatal(err)
				}
				y := x
				if !c.place {
					if y, err = d.EmptyBF16(rows, cols); err != nil {
						t.Fatal(err)
					}
				}
				if err := BiasActBF16(y, x, c.b, c.relu, c.p, 9); err != nil {
					t.Fatal(err)
				}
				if out[i], err = y.Host(); err != nil {
					t.Fatal(err)
				}
				x.Free()
				if !c.place {
					y.Free()
				}
			}
			for i := range out[0] {
				if out[0][i] != out[1][i] {
					t.Fatalf("%dx%d relu %v p %g bias %v in place %v: value %d is %#04x with the _v8 kernel, %#04x without", rows, cols, c.relu, c.p, c.b != nil, c.place, i, out[1][i], out[0][i])
				}
			}
		}
	}
}

// TestUnbiasActBF16Vec8 checks tune.BF16Vec8's unbias_act_bf16_v8 (one
// pass from y) against the copy and unbias_act_bf16 on the device,
// through the backend's UnbiasAct of bfloat16 storage (BF16Attention):
// the same bits, with and without a bias, ReLU and dropout.
func TestUnbiasActBF16Vec8(t *testing.T) {
	d := bf16OrSkip(t)
	defer func(on, attn bool) { tune.BF16Vec8, BF16Attention = on, attn }(tune.BF16Vec8, BF16Attention)
	BF16Attention = true
	r := rand.New(rand.NewPCG(55, 56))
	for _, sh := range [][2]int{{1, 8}, {1001, 24}, {169_343, 256}} {
		rows, cols := sh[0], sh[1]
		_, yh := bf16Operand(r, rows*cols)
		for i := range yh {
			if r.IntN(3) == 0 {
				yh[i] = 0 // ReLU's zeros and dropped values
			}
		}
		hy, err := d.BF16FromHost(yh, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		y := tbackend.FromStorage(hy, rows, cols)
		b := mustT(t, d, randSlice(r, cols), 1, cols)
		for _, c := range []struct {
			relu bool
			p    float32
		}{{true, 0}, {true, 0.4}, {false, 0}} {
			var out [2][]uint16
			for i, vec := range []bool{false, true} {
				tune.BF16Vec8 = vec
				s, err := d.be.UnbiasAct(y, tbackend.FromStorage(b, 1, cols), c.relu, c.p)
				if err != nil {
					t.Fatal(err)
				}
				h, ok := s.(*BF16Tensor)
				if !ok {
					t.Fatalf("UnbiasAct of bfloat16 storage gave %T", s)
				}
				if out[i], err = h.Host(); err != nil {
					t.Fatal(err)
				}
				h.Free()
			}
			for i := range out[0] {
				if out[0][i] != out[1][i] {
					t.Fatalf("%dx%d relu %v p %g: value %d is %#04x with the _v8 kernel, %#04x without", rows, cols, c.relu, c.p, i, out[1][i], out[0][i])
				}
			}
		}
		hy.Free()
	}
}

// TestToBF16Vec8 checks tune.BF16Vec8's f32_to_bf16_v8 against
// f32_to_bf16 on the device: the same bits for a million random bit
// patterns (NaNs and infinities among them) and the edge values, the
// count a multiple of 8.
func TestToBF16Vec8(t *testing.T) {
	d := defaultOrSkip(t)
	defer func(on bool) { tune.BF16Vec8 = on }(tune.BF16Vec8)
	r := rand.New(rand.NewPCG(57, 58))
	x := edgeFloats()
	for len(x)%8 != 0 || len(x) < 1<<20 {
		x = append(x, math.Float32frombits(r.Uint32()))
	}
	xd := mustT(t, d, x, 1, len(x))
	var out [2][]uint16
	for i, vec := range []bool{false, true} {
		tune.BF16Vec8 = vec
		h, err := ToBF16(xd)
		if err != nil {
			t.Fatal(err)
		}
		if out[i], err = h.Host(); err != nil {
			t.Fatal(err)
		}
		h.Free()
	}
	for i := range out[0] {
		if out[0][i] != out[1][i] {
			t.Fatalf("ToBF16(%#08x) = %#04x with the _v8 kernel, %#04x without", math.Float32bits(x[i]), out[1][i], out[0][i])
		}
	}
}
