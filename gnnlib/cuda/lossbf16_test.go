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

// TestSoftmaxNLLBF16 checks tune.BF16Loss's kernel (softmax_nll_blk_bf16:
// bfloat16 logits read as they are, the gradient stored in bfloat16)
// against softmax_nll_blk over the same values in float32 on the device:
// each gradient value is the float32 kernel's rounded to bfloat16 (the
// same float32 math, rounded once), and the losses agree to the float32
// sum of the block sums. Then through the backend's CrossEntropy with
// the switch on and off: bfloat16 logits give a bfloat16 gradient with
// it, a float32 one without, and the same loss.
func TestSoftmaxNLLBF16(t *testing.T) {
	d := bf16OrSkip(t)
	defer func(on, blk bool) { tune.BF16Loss, tune.LossBlockSum = on, blk }(tune.BF16Loss, tune.LossBlockSum)
	tune.LossBlockSum = true
	const rows, cols = 200_000, 40
	r := rand.New(rand.NewPCG(7, 8))
	x := make([]float32, rows*cols)
	xh := make([]uint16, rows*cols)
	for i := range x {
		xh[i] = uint16(half.FromFloat32BF16(float32(3 * r.NormFloat64())))
		x[i] = half.BF16(xh[i]).Float32()
	}
	labels := make([]int, rows)
	for i := range labels {
		labels[i] = r.IntN(cols+1) - 1
	}
	dx, err := d.FromHost(x, rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	dh, err := d.BF16FromHost(xh, rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	dl, err := NewLabels(d, labels)
	if err != nil {
		t.Fatal(err)
	}
	g32, l32 := poisoned(t, d, rows, cols), poisoned(t, d, 1, 1)
	if err := SoftmaxNLL(g32, l32, dx, dl); err != nil {
		t.Fatal(err)
	}
	g16, err := d.EmptyBF16(rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	l16 := poisoned(t, d, 1, 1)
	if err := softmaxNLLHalf(g16, l16, dh, dl); err != nil {
		t.Fatal(err)
	}
	want, err := g32.Host()
	if err != nil {
		t.Fatal(err)
	}
	got, err := g16.Host()
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, v := range want {
		if w := uint16(half.FromFloat32BF16(v)); got[i] != w {
			if bad++; bad <= 5 {
				t.Errorf("gradient %d: softmax_nll_blk_bf16 %#04x (%g), float32 kernel's rounded %#04x (%g)", i, got[i], half.BF16(got[i]).Float32(), w, half.BF16(w).Float32())
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d gradient values are not the float32 kernel's rounded", bad, len(want))
	}
	a, err := l32.Host()
	if err != nil {
		t.Fatal(err)
	}
	b, err := l16.Host()
	if err != nil {
		t.Fatal(err)
	}
	// Both sum per block in double; the block sums reach the float32
	// result by atomic adds in no fixed order.
	if e := math.Abs(float64(a[0]-b[0])) / math.Abs(float64(a[0])); e > 1e-6 {
		t.Errorf("loss: softmax_nll_blk_bf16 %g, softmax_nll_blk %g (relative %.3g)", b[0], a[0], e)
	}

	// The backend's CrossEntropy takes labels in [0, cols) only (it
	// checks them on upload); the kernels' -1 rows are left out there.
	inRange := make([]int, rows)
	for i, l := range labels {
		inRange[i] = max(l, 0)
	}
	be := d.be
	logits := tbackend.FromStorage(dh, rows, cols)
	var losses [2]float32
	for i, on := range []bool{false, true} {
		tune.BF16Loss = on
		ls, gs, err := be.CrossEntropy(logits, inRange, nil)
		if err != nil {
			t.Fatal(err)
		}
		if dt := tbackend.FromStorage(gs, rows, cols).DType(); (dt == tensor.BFloat16) != on {
			t.Errorf("CrossEntropy of bfloat16 logits with BF16Loss %v: a %v gradient", on, dt)
		}
		lv, err := ls.(*Tensor).Host()
		if err != nil {
			t.Fatal(err)
		}
		losses[i] = lv[0]
	}
	if e := math.Abs(float64(losses[0]-losses[1])) / math.Abs(float64(losses[0])); e > 1e-6 {
		t.Errorf("CrossEntropy's loss: %g with BF16Loss, %g without", losses[1], losses[0])
	}
}
