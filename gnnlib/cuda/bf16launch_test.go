package cuda

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// openRecorderBF16 is openRecorder for a device with bfloat16 kernels
// (sm_90, as an H100 or H200 reports itself).
func openRecorderBF16(t *testing.T) (*Device, *recordDriver) {
	d, drv := openRecorder(t)
	d.desc = "record (sm_90, no GPU)"
	return d, drv
}

// nnEpochLaunchesAMP runs three epochs of a 3-layer nn model (kind "gcn"
// or "gatv2", nn.ReLUDropout between the layers) with the forward pass
// under tensor.Autocast(dt), as gnnbench's nnbf16 part does, on a
// recording device with bfloat16 kernels, and returns the launches of
// the third.
func nnEpochLaunchesAMP(t *testing.T, kind string, hg *graph.Graph, dims []int, dt tensor.DType) launchCount {
	newConv := epochConv(kind)
	d, drv := openRecorderBF16(t)
	trace := nnEpochTrace(d, drv, hg, dims, newConv, func(f func()) { tensor.Autocast(dt, f) })
	lastConversions = conversions(trace, hg.NumNodes())
	return countLaunches(trace)
}

var lastConversions launchCount

// conversions counts the float32/bfloat16 conversions of recs by their
// size: "f32_to_bf16 N×256" for n-row blocks, "f32_to_bf16 32768" else.
func conversions(recs []graphNode, n int) launchCount {
	c := launchCount{}
	for _, r := range recs {
		kernel := strings.TrimSuffix(r.kernel, "_v8") // f32_to_bf16_v8: tune.BF16Vec8
		if kernel != "f32_to_bf16" && kernel != "bf16_to_f32" {
			continue
		}
		cnt := int(r.args[2])
		if cnt%n == 0 {
			c[fmt.Sprintf("%s N×%d", kernel, cnt/n)]++
		} else {
			c[fmt.Sprintf("%s %d", kernel, cnt)]++
		}
	}
	return c
}

// TestBF16EpochLaunches lists the kernels of the arxiv-width nn GCN and
// GATv2 epochs with the forward pass under Autocast(BFloat16) (gnnbench's
// nnbf16 part) beside the float32 epoch's, with the float32/bfloat16
// conversions by size, and checks what moves whole activations twice:
// no conversion of an N-row block other than the input features (once
// a pass at most, by the first layer: N×128; GATv2's weight gradient
// reads them again rather than keep a 16-bit copy between the passes),
// none of the loss's logits and gradient (N×C: tune.BF16Loss), one
// activation pass a layer and one pass for its gradient and bias
// gradient (tune.BF16ActColSum), no more widenings than parameters, and
// float32 column copies only of the weight gradients (tune.BF16Concat),
// and no more GEMMs or SpMMs than the float32 epoch launches. The GATv2
// epoch is checked with BF16Attention on (its bfloat16 kernels read the
// one product's halves); with it off the attention widens its operands,
// which the test only lists.
func TestBF16EpochLaunches(t *testing.T) {
	defer func(on bool) { BF16Attention = on }(BF16Attention)
	// The split-K weight gradients kept in float32 and rounded where they
	// lie (on by default) are part of the launch list checked here.
	defer func(sk, rp bool) { tune.BF16SplitF32, tensor.RoundParamGradsInPlace = sk, rp }(tune.BF16SplitF32, tensor.RoundParamGradsInPlace)
	tune.BF16SplitF32, tensor.RoundParamGradsInPlace = true, true
	// More than 4096 nodes: the weight gradients Xᵀ·dY split their inner
	// dimension, as the arxiv-sized ones do.
	hg := epochGraph(t, 5000)
	for _, c := range []struct {
		kind    string
		classes int
		attn    bool // BF16Attention
		check   bool
	}{{"gcn", 40, false, true}, {"gatv2", 64, true, true}, {"gatv2", 64, false, false}} {
		BF16Attention = c.attn
		dims := []int{128, 256, 256, c.classes}
		f32 := nnEpochLaunchesAMP(t, c.kind, hg, dims, tensor.Float32)
		bf := nnEpochLaunchesAMP(t, c.kind, hg, dims, tensor.BFloat16)
		conv := lastConversions
		name := fmt.Sprintf("%s (BF16Attention %v)", c.kind, c.attn)
		t.Logf("%s float32: %d launches: %v", name, f32.total(), f32)
		t.Logf("%s bfloat16: %d launches: %v", name, bf.total(), bf)
		t.Logf("%s bfloat16 conversions: %v", name, conv)
		if !c.check {
			continue
		}
		for k, v := range conv {
			var kern string
			var width int
			if _, err := fmt.Sscanf(k, "%s N×%d", &kern, &width); err != nil {
				continue // a parameter's (fewer values than N)
			}
			// The logits and their gradient: read and written in
			// bfloat16 by the loss (tune.BF16Loss).
			if width != 128 || v > 2 {
				t.Errorf("%s: the bfloat16 epoch converts an N×%d block %d times (%s)", name, width, v, kern)
			}
		}
		var gemm32, spmm32, gemm16, spmm16 int
		for k, v := range f32 {
			gemm32 += v * btoi(strings.Contains(k, "gemm")) // gemm2_*, or sm80_gemm_tf32x3_* (tune.GEMMTF32x3)
			spmm32 += v * btoi(strings.Contains(k, "spmm"))
		}
		for k, v := range bf {
			gemm16 += v * btoi(strings.Contains(k, "gemm"))
			spmm16 += v * btoi(strings.Contains(k, "spmm"))
			if k == "axpby" {
				t.Errorf("%s: the bfloat16 epoch sums gradient parts (axpby ×%d)", name, v)
			}
		}
		// One activation pass a layer: the bias, ReLU and dropout in the
		// layer's own op (nn.FuseLayerActivationUnderAutocast), not a
		// biased output and then ReLUDropout.
		if layers, n := len(dims)-1, bf["bias_act_bf16"]+bf["bias_act_bf16_v8"]; n > layers {
			t.Errorf("%s: the bfloat16 epoch launches bias_act_bf16 %d times for %d layers", name, n, layers)
		}
		// The activation's gradient and its layer's bias gradient in one
		// pass (tune.BF16ActColSum): only the last layer's bias sums
		// a gradient alone.
		if bf["act_backward_bf16"] > 0 || bf["col_sum_bf16"] > 1 {
			t.Errorf("%s: the bfloat16 epoch launches act_backward_bf16 %d times and col_sum_bf16 %d times", name, bf["act_backward_bf16"], bf["col_sum_bf16"])
		}
		// A parameter's gradient is widened into its float32 leaf once;
		// nothing else is (GATv2's weight gradients are sliced from one
		// product in bfloat16: tune.BF16Narrow).
		if params := (len(dims) - 1) * map[string]int{"gcn": 2, "gatv2": 4}[c.kind]; bf["bf16_to_f32"] > params {
			t.Errorf("%s: the bfloat16 epoch launches bf16_to_f32 %d times for %d parameters", name, bf["bf16_to_f32"], params)
		}
		// GCN's parameter gradients are float32 sums (split-K products,
		// column sums) rounded where they lie
		// (tensor.RoundParamGradsInPlace, tune.BF16SplitF32): none is
		// widened.
		if c.kind == "gcn" && tune.BF16SplitF32 && tensor.RoundParamGradsInPlace && bf["bf16_to_f32"] > 0 {
			t.Errorf("%s: the bfloat16 epoch widens %d parameter gradients", name, bf["bf16_to_f32"])
		}
		// Concat rounds as it copies (tune.BF16Concat): GATv2's weights
		// make no float32 copy; float32 columns are copied only from a
		// split-K weight gradient (tune.BF16SplitF32), twice a layer,
		// and, with the edge-coefficient backward (tune.GATv2EdgeCoef,
		// or tune.GATv2EdgeAuto in GATv2Auto mode), the source pass's
		// share of each layer's attention-vector gradient
		// (heads×channels values).
		layers := len(dims) - 1
		edge := tune.GATv2EdgeCoef || tune.GATv2EdgeAuto && GATv2BackwardMode == GATv2Auto
		if copies := 2*layers + layers*btoi(c.kind == "gatv2" && edge); bf["copy_cols"] > copies || bf["copy_cols_f32_bf16"] > 2*layers {
			t.Errorf("%s: the bfloat16 epoch copies float32 columns %d times and rounds %d copies for %d layers", name, bf["copy_cols"], bf["copy_cols_f32_bf16"], layers)
		}
		if gemm16 > gemm32 || spmm16 > spmm32 {
			t.Errorf("%s: the bfloat16 epoch launches %d GEMMs and %d SpMMs, the float32 one %d and %d", name, gemm16, spmm16, gemm32, spmm32)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
