package cuda

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
)

// TestAttentionKernelsInPTX checks that the fused attention kernels the
// launchers name for every head width they accept are in the PTX (float32
// and bfloat16, both bfloat16 lane layouts), and
// which widths take the fused GATv2 kernels: multiples of 4 up to 1024,
// masked between the exact 8, 16, ..., 512, and 1024; GATv2Attention
// pads the widths between 512 and 1024 to 1024 (fusedGATv2Width).
func TestAttentionKernelsInPTX(t *testing.T) {
	entries := map[string]bool{}
	for _, line := range strings.Split(ptxSource, "\n") {
		if name, ok := strings.CutPrefix(line, ".visible .entry "); ok {
			entries[strings.TrimSuffix(name, "(")] = true
		}
	}
	has := func(name string) bool { return entries[name] }
	for c := 1; c <= 1100; c++ {
		k, ok := gatShape(c)
		if want := c%4 == 0 && (c <= maxMaskedGATv2Channels || c == maxGATv2Channels); ok != want {
			t.Errorf("gatShape(%d) ok = %t, want %t", c, ok, want)
		}
		if ok {
			if k.width() < c || (!k.mask && k.width() != c) {
				t.Errorf("gatShape(%d) = %+v (width %d)", c, k, k.width())
			}
			for _, f := range []string{"gatv2_fwd", "gatv2_bwd_dst", "gatv2_bwd_dsts", "gatv2_bwd_src", "gatv2_bwd_srcs", "tf_fwd", "tf_bwd_dst", "tf_bwd_src"} {
				// float32, bfloat16 and, where k has it, the wide layout.
				for _, sfx := range []string{attnSuffix(k, false, false), attnSuffix(k, true, false), attnSuffix(k, true, true)} {
					if !has(f + sfx) {
						t.Errorf("gatShape(%d): kernel %s%s not in the PTX", c, f, sfx)
					}
				}
			}
		}
		if c <= maxGATChannels {
			for _, f := range []string{"gat_fwd", "gat_bwd_dst", "gat_bwd_src"} {
				for _, sfx := range []string{gatSuffix(c), gatSuffix(c) + "_bf16"} {
					if !has(f + sfx) {
						t.Errorf("GAT with %d channels: kernel %s%s not in the PTX", c, f, sfx)
					}
				}
			}
		}
	}
	for c, vs := range tune.GATv2Variants {
		k, ok := gatShape(c)
		if !ok || k.mask {
			t.Errorf("tune.GATv2Variants has %d channels, which no exact kernel takes", c)
			continue
		}
		for _, v := range vs {
			for _, f := range []string{"gatv2_bwd_dst", "gatv2_bwd_dsts"} {
				for _, bf16 := range []bool{false, true} {
					if name := fmt.Sprintf("%s%s_%s", f, attnSuffix(k, bf16, false), v); !has(name) {
						t.Errorf("tune.GATv2Variants[%d]: kernel %s not in the PTX", c, name)
					}
				}
			}
		}
	}
	for c, want := range map[int]int{7: 8, 12: 12, 500: 500, 516: 1024, 700: 1024, 1024: 1024} {
		if got := fusedGATv2Width(c); got != want {
			t.Errorf("fusedGATv2Width(%d) = %d, want %d", c, got, want)
		}
	}
	for c, want := range map[int]string{8: "_2_1", 12: "_m_4_1", 40: "_m_16_1", 256: "_32_2", 300: "_m_32_3", 400: "_m_32_4", 512: "_32_4", 1024: "_32_8"} {
		if k, _ := gatShape(c); k.suffix() != want {
			t.Errorf("gatShape(%d).suffix() = %q, want %q", c, k.suffix(), want)
		}
	}
}
