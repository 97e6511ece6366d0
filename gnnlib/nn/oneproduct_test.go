package nn_test

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestGATv2OneProduct runs devicetest.CheckGATv2OneProduct on the Fake
// (in float32 and under Autocast(BFloat16)), and checks that the layer takes the one-product op when
// nn.GATv2OneProduct is on and not when it is off.
func TestGATv2OneProduct(t *testing.T) {
	dev := &devicetest.Fake{}
	g := memGraph(t, 300)
	devicetest.CheckGATv2OneProduct(t, dev, g, 1e-5)
	t.Run("bfloat16", func(t *testing.T) {
		tensor.Autocast(tensor.BFloat16, func() { devicetest.CheckGATv2OneProduct(t, dev, g, 2e-2) })
	})

	defer func(on bool) { nn.GATv2OneProduct = on }(nn.GATv2OneProduct)
	for _, on := range []bool{false, true} {
		nn.GATv2OneProduct = on
		before := dev.Calls("GATv2AttentionPair")
		conv := nn.NewGATv2Conv(24, 16, 1, true, 0)
		nn.To(conv, dev)
		conv.Forward(g, tensor.Randn(1, 300, 24).To(dev)).Sum().Backward()
		if got := dev.Calls("GATv2AttentionPair") - before; (got > 0) != on {
			t.Errorf("GATv2OneProduct %v: %d GATv2AttentionPair calls", on, got)
		}
	}
}
