package cuda

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// TestDeviceHalfStorage runs devicetest.CheckHalfStorage on the GPU: under
// Autocast(BFloat16) the activations of Linear, GCNConv, GATConv,
// GATv2Conv, ReLU and Dropout are BF16Tensor storage (the tensor-core
// MatMul, the bfloat16 SpMM and bias_act_bf16 write it), the logits, loss
// and gradients agree with the CPU emulation, and the recorded forward
// pass holds at most 0.6 of the float32 bytes.
func TestDeviceHalfStorage(t *testing.T) {
	d := defaultOrSkip(t)
	if !d.hasBF16() {
		t.Skipf("%v has no bfloat16 tensor cores", d)
	}
	devicetest.CheckHalfStorage(t, d.be, 1e-2, tensor.BFloat16)
}

// TestHalfStorageOps checks the backend's handling of bfloat16 storage
// outside its bfloat16 kernels against the float32 values it stands for:
// ToHalf rounds, Copy and Download widen exactly, an op without a
// bfloat16 kernel (Softmax) reads the widened values, ColSum
// (col_sum_bf16) sums them in float32, and AddTo into
// bfloat16 storage sums in float32 and rounds once.
func TestHalfStorageOps(t *testing.T) {
	d := defaultOrSkip(t)
	be := d.be
	var _ tensor.HalfStorer = be
	x := tensor.Randn(3, 37, 29)
	y := tensor.Randn(4, 37, 29)
	xd, yd := x.To(be), y.To(be)
	s, err := be.ToHalf(xd, tensor.BFloat16)
	if err != nil {
		t.Fatal(err)
	}
	h := tbackend.FromStorage(s, 37, 29)
	if got := h.DType(); got != tensor.BFloat16 {
		t.Fatalf("ToHalf storage DType = %v, want bfloat16", got)
	}
	want := x.RoundTo(tensor.BFloat16)
	if e := devicetest.RelErr(h, want); e != 0 {
		t.Errorf("ToHalf(x) differs from x.RoundTo(BFloat16): error %g", e)
	}
	if c := h.Clone(); c.DType() != tensor.Float32 || devicetest.RelErr(c, want) != 0 {
		t.Errorf("Clone of bfloat16 storage: dtype %v, error %g; want float32, exact", c.DType(), devicetest.RelErr(c, want))
	}
	if e := devicetest.RelErr(h.Softmax(1), want.Softmax(1)); e > 1e-6 {
		t.Errorf("Softmax of bfloat16 storage: error %g against the rounded values' softmax", e)
	}
	cs, err := be.ColSum(h)
	if err != nil {
		t.Fatal(err)
	}
	if e := devicetest.RelErr(tbackend.FromStorage(cs, 29), want.SumAxis(0, false)); e > 1e-5 {
		t.Errorf("ColSum of bfloat16 storage (col_sum_bf16): error %g against the rounded values' sums", e)
	}
	if _, err := be.ToHalf(xd, tensor.Float16); err == nil {
		t.Error("ToHalf(Float16) succeeded; the device keeps no float16 storage")
	}
	if err := be.AddTo(h, yd); err != nil {
		t.Fatal(err)
	}
	sum := want.Add(y).RoundTo(tensor.BFloat16)
	if e := devicetest.RelErr(h, sum); e > 0 {
		// The float32 sum of two values is rounded once: exactly sum.
		t.Errorf("AddTo into bfloat16 storage: error %g against round(x16 + y)", e)
	}
}
