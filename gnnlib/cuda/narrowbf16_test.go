package cuda

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/internal/half"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// TestNarrowBF16 checks tune.BF16Narrow on the device: Narrow of
// bfloat16 storage under Autocast(BFloat16) gives bfloat16 storage
// holding exactly the slice's values (the host's Narrow of the same
// values), along every axis of a 3-axis shape; outside Autocast the
// slice is float32 storage with the same values.
func TestNarrowBF16(t *testing.T) {
	d := bf16OrSkip(t)
	r := rand.New(rand.NewPCG(45, 46))
	shape := []int{37, 6, 20}
	n := shape[0] * shape[1] * shape[2]
	xv, xh := bf16Operand(r, n)
	for i := range xv {
		xv[i] = half.BF16(xh[i]).Float32()
	}
	hx, err := d.BF16FromHost(xh, shape[0], shape[1]*shape[2])
	if err != nil {
		t.Fatal(err)
	}
	x := tbackend.FromStorage(hx, shape...)
	ref := tensor.FromSlice(xv, shape...)
	for axis, c := range [][2]int{{5, 20}, {2, 3}, {7, 13}} {
		for _, amp := range []tensor.DType{tensor.Float32, tensor.BFloat16} {
			t.Run(fmt.Sprintf("axis=%d,%v", axis, amp), func(t *testing.T) {
				var s tensor.Storage
				tensor.Autocast(amp, func() { s, err = d.be.Narrow(x, axis, c[0], c[1]) })
				if err != nil {
					t.Fatal(err)
				}
				want := ref.Narrow(axis, c[0], c[1])
				got := tbackend.FromStorage(s, want.Shape()...)
				if dt := got.DType(); dt != amp {
					t.Errorf("Narrow of bfloat16 storage under Autocast(%v) gave %v storage", amp, dt)
				}
				if !tensor.AllClose(got.CPU(), want, 0, 0) {
					t.Errorf("Narrow(axis %d, %d, %d) = %v, want %v", axis, c[0], c[1], got.CPU(), want)
				}
			})
		}
	}
}

// TestConcatBF16 checks tune.BF16Concat on the device: Concat under
// Autocast(BFloat16) of a float32 and a bfloat16 operand gives bfloat16
// storage holding the host's Concat of the values, the float32 ones
// rounded, along each axis of a 2-axis shape; outside Autocast, float32
// storage with the values as they are.
func TestConcatBF16(t *testing.T) {
	d := bf16OrSkip(t)
	r := rand.New(rand.NewPCG(47, 48))
	for axis, shapes := range [][2][]int{{{3, 40}, {5, 40}}, {{64, 128}, {64, 33}}} {
		a := tensor.FromSlice(randSlice(r, shapes[0][0]*shapes[0][1]), shapes[0]...)
		bv, bh := bf16Operand(r, shapes[1][0]*shapes[1][1])
		for i := range bv {
			bv[i] = half.BF16(bh[i]).Float32()
		}
		hb, err := d.BF16FromHost(bh, shapes[1][0], shapes[1][1])
		if err != nil {
			t.Fatal(err)
		}
		da := a.To(d.be)
		db := tbackend.FromStorage(hb, shapes[1]...)
		for _, amp := range []tensor.DType{tensor.Float32, tensor.BFloat16} {
			t.Run(fmt.Sprintf("axis=%d,%v", axis, amp), func(t *testing.T) {
				var s tensor.Storage
				tensor.Autocast(amp, func() { s, err = d.be.Concat(axis, []*tensor.Tensor{da, db}) })
				if err != nil {
					t.Fatal(err)
				}
				want := tensor.Concat(axis, a, tensor.FromSlice(bv, shapes[1]...))
				if amp == tensor.BFloat16 {
					want = want.RoundTo(tensor.BFloat16)
				}
				got := tbackend.FromStorage(s, want.Shape()...)
				if dt := got.DType(); dt != amp {
					t.Errorf("Concat under Autocast(%v) gave %v storage", amp, dt)
				}
				if !tensor.AllClose(got.CPU(), want, 0, 0) {
					t.Errorf("Concat(axis %d) = %v, want %v", axis, got.CPU(), want)
				}
			})
		}
	}
}

// TestMatMulSplitF32 checks tune.BF16SplitF32 on the device: under
// Autocast(BFloat16) a weight-gradient product Xᵀ·dY whose inner
// dimension is split (169,343 rows) comes back in float32 storage with
// it, in bfloat16 without it, and the bfloat16 result is the float32 one
// rounded, value for value.
func TestMatMulSplitF32(t *testing.T) {
	d := bf16OrSkip(t)
	defer func(on bool) { tune.BF16SplitF32 = on }(tune.BF16SplitF32)
	r := rand.New(rand.NewPCG(49, 50))
	const rows, in, out = 169_343, 128, 256
	_, xh := bf16Operand(r, rows*in)
	_, gh := bf16Operand(r, rows*out)
	hx, err := d.BF16FromHost(xh, rows, in)
	if err != nil {
		t.Fatal(err)
	}
	hg, err := d.BF16FromHost(gh, rows, out)
	if err != nil {
		t.Fatal(err)
	}
	if !d.gemmBF16SplitsK(hx, hg, true, false) {
		t.Fatalf("Xᵀ·dY of %d rows does not split its inner dimension on %s", rows, d.desc)
	}
	x, g := tbackend.FromStorage(hx, rows, in), tbackend.FromStorage(hg, rows, out)
	var res [2]*tensor.Tensor
	for i, on := range []bool{false, true} {
		tune.BF16SplitF32 = on
		var s tensor.Storage
		tensor.Autocast(tensor.BFloat16, func() { s, err = d.be.MatMul(x, g, true, false) })
		if err != nil {
			t.Fatal(err)
		}
		res[i] = tbackend.FromStorage(s, in, out)
		if want := map[bool]tensor.DType{false: tensor.BFloat16, true: tensor.Float32}[on]; res[i].DType() != want {
			t.Errorf("split-K MatMul under Autocast with BF16SplitF32 %v: %v storage, want %v", on, res[i].DType(), want)
		}
	}
	// The split's partial sums add atomically in no fixed order: a value
	// whose two runs differ in the last float32 bit may round apart.
	a, b := res[0].CPU(), res[1].CPU().RoundTo(tensor.BFloat16)
	if e := devicetest.RelErr(a, b); e > 1.0/128 {
		t.Errorf("split-K MatMul: bfloat16 result %.3g (relative) from the float32 one rounded", e)
	}
}
