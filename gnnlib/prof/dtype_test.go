package prof_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/prof"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestOpsDType checks that an op profile tells the formats apart: the
// same ops run in float32 and under Autocast(BFloat16) make separate rows
// named with the format, and the 16-bit rows count two bytes a value for
// the values stored in 16 bits (the ops' outputs, and inputs other ops
// made under Autocast) and four for float32 leaves. (On a device the
// inputs' own storage formats count, Tensor.DType; devicetest.Fake runs
// host ops inside its ops, which the hook sees too, so it is not used
// here.)
func TestOpsDType(t *testing.T) {
	const n, k, m = 64, 32, 16
	{
		x := tensor.Randn(1, n, k)
		w := tensor.Randn(2, k, m).SetRequiresGrad(true)
		p := prof.StartOps()
		run := func() { x.MatMul(w).ReLU() }
		run()
		tensor.Autocast(tensor.BFloat16, run)
		rep := p.Stop()
		rows := map[string]prof.OpRow{}
		for _, r := range rep.Rows {
			rows[r.Name()] = r
		}
		for name, want := range map[string]int64{
			"MatMul":            4*n*m + 4*(n*k+k*m),
			"MatMul [bfloat16]": 2*n*m + 4*(n*k+k*m),
			"ReLU":              4*n*m + 4*n*m,
			"ReLU [bfloat16]":   2*n*m + 2*n*m,
		} {
			r, ok := rows[name]
			switch {
			case !ok:
				t.Errorf("no row %q in\n%v", name, rep)
			case r.Bytes != want:
				t.Errorf("%s moves %d bytes, want %d", name, r.Bytes, want)
			}
		}
		if r := rows["ReLU [bfloat16]"]; r.DType != tensor.BFloat16 {
			t.Errorf("ReLU under Autocast has DType %v, want bfloat16", r.DType)
		}
	}
}
