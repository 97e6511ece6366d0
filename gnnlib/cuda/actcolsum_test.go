package cuda

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/internal/half"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// TestActColSumBF16 checks tune.BF16ActColSum's kernel
// (act_backward_colsum_bf16, through the backend's ReLUDropoutGradColSum
// of bfloat16 storage) against the two kernels it replaces on the
// device: the gradient bit for bit act_backward_bf16's, the column sums
// col_sum_bf16's of that gradient to the float32 rounding of their
// atomic adds, over activations with zeros (ReLU) and dropped values.
func TestActColSumBF16(t *testing.T) {
	d := defaultOrSkip(t)
	if !d.hasBF16() {
		t.Skipf("%s has no bfloat16 kernels", d.desc)
	}
	r := rand.New(rand.NewPCG(43, 44))
	for _, sh := range [][2]int{{1, 1}, {3, 47}, {1000, 256}, {169_343, 256}} {
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
			if e := math.Abs(float64(gotSum[j] - ws[j])); !(e <= float64(rows/512+2)*1.2e-7*abs+1e-30) {
				t.Errorf("%dx%d: column sum %d is %v, col_sum_bf16's %v", rows, cols, j, gotSum[j], ws[j])
			}
		}
		for _, x := range []*BF16Tensor{g, y, want, gs.(*BF16Tensor)} {
			x.Free()
		}
	}
}
