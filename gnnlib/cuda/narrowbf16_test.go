package cuda

import (
	"fmt"
	"math/rand/v2"
	"testing"

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
	d := defaultOrSkip(t)
	if !d.hasBF16() {
		t.Skipf("%s has no bfloat16 kernels", d.desc)
	}
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
