package devicetest_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// TestFakeGATv2AttentionOutChecksOutput checks that the Fake's
// GATv2AttentionOut backward refuses an output that differs from the one
// its forward made where the output's gradient is not zero (what a layer
// that rebuilds it wrongly would hand a GPU's kernels), and takes one that
// differs only where the gradient is zero, which the kernels never read.
func TestFakeGATv2AttentionOutChecksOutput(t *testing.T) {
	const n, heads, c = 50, 2, 4
	g := devicetest.HubGraph(t, n, 300, false).AddSelfLoops()
	for _, tc := range []struct {
		name    string
		change  func(out, grad []float32)
		wantErr bool
	}{
		{"same", func(out, grad []float32) {}, false},
		{"off where the gradient is zero", func(out, grad []float32) {
			grad[3] = 0
			out[3] += 10
		}, false},
		{"off where the gradient is not zero", func(out, grad []float32) { out[7] += 1e-3 }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev := &devicetest.Fake{}
			hs := tensor.Randn(1, n, heads*c).To(dev)
			hd := tensor.Randn(2, n, heads*c).To(dev)
			att := tensor.Randn(3, 1, heads*c).To(dev)
			s, back, err := dev.GATv2AttentionOut(g, hs, hd, att, heads, 0.2, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			o := backend.FromStorage(s, n, heads*c).CPU().Data()
			grad := tensor.Randn(4, n, heads*c).Data()
			tc.change(o, grad)
			_, _, _, err = back(tensor.Wrap(grad, n, heads*c).To(dev), tensor.Wrap(o, n, heads*c).To(dev))
			if got := err != nil; got != tc.wantErr {
				t.Errorf("backward error = %v, want an error: %v", err, tc.wantErr)
			}
		})
	}
}
