package cuda

import (
	"fmt"
	"math"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
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

// TestAttentionBackwardAfterHalfStore runs nn's fused attention ops
// (GAT, GATv2, the Graph Transformer) under Autocast(BFloat16), where the
// tensor layer stores each op's output in bfloat16 and frees the float32
// one, then fills freshly allocated blocks of the output's size with NaN
// before the backward pass, and compares the gradients with the same ops
// in float32. The backward kernels read the forward's output: they used
// to read the float32 block Autocast had freed, so the gradients changed
// with whatever the allocator put there next (GAT under bfloat16 trained
// to different accuracies run to run, TestDeviceAutocast's GAT gradients
// were 0.1–0.7 off). It runs with BF16Attention off (the ops' float32
// kernels on widened copies) and on (their bfloat16 kernels).
func TestAttentionBackwardAfterHalfStore(t *testing.T) {
	defer func(on bool) { BF16Attention = on }(BF16Attention)
	d := defaultOrSkip(t)
	if !d.hasBF16() {
		t.Skipf("%v has no bfloat16 tensor cores", d)
	}
	be := d.be
	const n, heads, c = 300, 2, 16
	g := testGraph(t, n, 3000, false)
	cases := []struct {
		name     string
		features int // the inputs the bfloat16 kernels read in bfloat16
		in       []*tensor.Tensor
		f        func(x []*tensor.Tensor) *tensor.Tensor
	}{
		{"GATAttention", 1, []*tensor.Tensor{randn(1, n, heads*c), randn(2, n, heads), randn(3, n, heads)}, func(x []*tensor.Tensor) *tensor.Tensor {
			return nn.GATAttention(g, x[0], x[1], x[2], heads, 0.2, 0, tensor.NewRNG(1), false)
		}},
		{"GATv2Attention", 2, []*tensor.Tensor{randn(4, n, heads*c), randn(5, n, heads*c), randn(6, heads, c)}, func(x []*tensor.Tensor) *tensor.Tensor {
			return nn.GATv2Attention(g, x[0], x[1], x[2], heads, 0.2, 0, tensor.NewRNG(1), false)
		}},
		{"TransformerAttention", 3, []*tensor.Tensor{randn(7, n, heads*c), randn(8, n, heads*c), randn(9, n, heads*c)}, func(x []*tensor.Tensor) *tensor.Tensor {
			return nn.TransformerAttention(g, x[0], x[1], x[2], heads, 0, tensor.NewRNG(1), false)
		}},
	}
	w := randn(10, n, heads*c).To(be)
	for _, tc := range cases {
		for _, on := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/BF16Attention=%t", tc.name, on), func(t *testing.T) {
				BF16Attention = on
				// With BF16Attention the float32 reference reads the
				// operands the bfloat16 kernels read: the features and
				// dOut rounded to bfloat16. Rounding them alone moves
				// GATv2's x_r gradient by 0.13 (this error measure, on the
				// CPU): a rounded x_l + x_r flips the sign of some z near
				// 0, where LeakyReLU's derivative jumps from slope to 1.
				round := func(x *tensor.Tensor, i int) *tensor.Tensor {
					if !on || i >= tc.features {
						return x
					}
					return tensor.Wrap(rounded(x.CPU().Data()), x.Shape()...)
				}
				grads := func(half bool) []*tensor.Tensor {
					xs := make([]*tensor.Tensor, len(tc.in))
					for i, x := range tc.in {
						if !half {
							x = round(x, i)
						}
						xs[i] = x.Clone().To(be).SetRequiresGrad(true)
					}
					var out *tensor.Tensor
					if half {
						tensor.Autocast(tensor.BFloat16, func() { out = tc.f(xs) })
						if out.DType() != tensor.BFloat16 {
							t.Fatalf("output stored in %v under Autocast(BFloat16)", out.DType())
						}
						// Blocks the size of the output, as the freed float32
						// one was, filled with NaN and held through the
						// backward pass.
						var junk []*Tensor
						for range 16 {
							j, err := d.Empty(n, heads*c)
							if err != nil {
								t.Fatal(err)
							}
							if err := j.Fill(float32(math.NaN())); err != nil {
								t.Fatal(err)
							}
							junk = append(junk, j)
						}
						defer freeAll(junk)
						out.Mul(w).Sum().Backward()
					} else {
						out = tc.f(xs)
						out.Mul(round(w, 0).To(be)).Sum().Backward()
					}
					gs := make([]*tensor.Tensor, len(xs))
					for i, x := range xs {
						gs[i] = x.Grad().CPU()
					}
					return gs
				}
				want, got := grads(false), grads(true)
				for i := range want {
					// bfloat16 output (2⁻⁸ relative) and, with
					// BF16Attention, bfloat16 features and gradients.
					if e := devicetest.RelErr(got[i], want[i]); !(e <= 2e-2) {
						t.Errorf("gradient of input %d under Autocast(BFloat16): error %g against float32", i, e)
					}
				}
			})
		}
	}
}
