package cuda

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
)

// TestGATv2DattBlockEmulated runs gatv2.cu's gatv2_datt_flush with red
// (tune.GATv2DattBlock) on the CPU over a whole launch — every block of
// the grid launchShape gives the backward passes, each lane group's
// share of att's gradient left in shared memory in its lanes' layout
// (chan4), then summed per head and channel by the block's threads as the
// kernel's loop does — and checks that each group's share lands once, in
// its own head and channel, as the per-lane atomic adds it replaces put
// it: the sums against the direct ones in float64, with integer shares
// so that both are exact. Every group shape, masked widths (whose padding
// channels hold garbage here, which must not reach att's gradient), the
// wide bfloat16 layout, several heads (groups of a block meeting one head
// or several), and grids whose number of groups is and is not a multiple
// of the block's.
func TestGATv2DattBlockEmulated(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		n, heads, c int
		wide        bool
		sms         int
	}{
		{300, 1, 256, false, 4}, {300, 1, 256, true, 4}, {5000, 1, 256, false, 132}, {700, 4, 64, false, 132},
		{50, 2, 8, false, 4}, {90, 4, 16, false, 4}, {400, 3, 12, false, 4}, {33, 2, 300, false, 4},
		{20, 1, 500, false, 4}, {17, 1, 1024, true, 4}, {300, 5, 40, false, 2}, {1000, 3, 128, false, 132},
		{7, 16, 4, false, 2}, {200, 2, 512, true, 8},
	} {
		t.Run(fmt.Sprintf("n%d_%dx%d_wide%t_sm%d", tc.n, tc.heads, tc.c, tc.wide, tc.sms), func(t *testing.T) {
			k, ok := gatShape(tc.c)
			if !ok {
				t.Fatalf("gatShape(%d) not ok", tc.c)
			}
			a := &GATv2{Heads: tc.heads, Channels: tc.c}
			dst, _, block, _ := a.launchShape(&Device{nsm: tc.sms}, tc.n)
			l := gatv2Lanes{g: k.g, vpl: k.vpl, wide: tc.wide && k.wide()}
			H, C, CP := tc.heads, tc.c, k.width()
			gpb := block / k.g
			ngrp := dst * gpb
			if ngrp%H != 0 {
				// The passes then add att's gradient per item, not here.
				t.Skipf("grid of %d groups, not a multiple of %d heads", ngrp, H)
			}
			// share[grp][c] is group grp's da at channel c (its lanes'
			// float4s in layout l); padding channels c >= C garbage.
			share := make([][]float64, ngrp)
			want := make([]float64, H*C)
			for grp := range share {
				share[grp] = make([]float64, CP)
				for c := range share[grp] {
					share[grp][c] = float64(r.IntN(2001) - 1000)
					if c < C {
						want[grp%H*C+c] += share[grp][c]
					}
				}
			}
			got := make([]float64, H*C)
			adds := 0
			for b := 0; b < dst; b++ {
				// The groups' stores: thread k0*G + lane writes its VPL
				// float4s at sm[k0*CP + chan4(i, lane)].
				sm := make([]float64, gpb*CP)
				written := make([]bool, gpb*CP)
				for k0 := 0; k0 < gpb; k0++ {
					grp := b*gpb + k0
					for lane := 0; lane < k.g; lane++ {
						for i := 0; i < k.vpl; i++ {
							c4 := l.chan4(i, lane)
							for j := range 4 {
								if written[k0*CP+c4+j] {
									t.Fatalf("block %d: group %d lane %d writes channel %d twice", b, k0, lane, c4+j)
								}
								written[k0*CP+c4+j] = true
								sm[k0*CP+c4+j] = share[grp][c4+j]
							}
						}
					}
				}
				// __syncthreads, then the block's threads over (k, c).
				hs := min(H, gpb)
				first := b * gpb
				for tid := 0; tid < block; tid++ {
					for j := tid; j < hs*CP; j += block {
						kk, c := j/CP, j%CP
						if k.mask && c >= C {
							continue
						}
						var s float64
						for k2 := kk; k2 < gpb; k2 += H {
							s += sm[k2*CP+c]
						}
						got[(first+kk)%H*C+c] += s
						adds++
					}
				}
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("datt[head %d, channel %d] = %g, want %g", i/C, i%C, got[i], want[i])
				}
			}
			// One add per block and channel of each head it meets,
			// against 4·VPL a lane.
			if wantAdds := dst * min(H, gpb) * C; adds != wantAdds {
				t.Errorf("%d atomic adds, want %d (per lane: %d)", adds, wantAdds, ngrp*k.g*4*k.vpl)
			}
		})
	}
}

// TestGATv2DattBlockLaunches checks on the recording driver that the
// backward passes that sum att's gradient (the recomputing, saved-edge and
// edge-coefficient ones) take tune.GATv2DattBlock as their last argument
// and, with it on, the dynamic shared memory gatv2_datt_flush reads:
// 4·width bytes for each of the block's lane groups; the other passes
// none.
func TestGATv2DattBlockLaunches(t *testing.T) {
	defer func(red, edge bool, mode GATv2Backward) {
		tune.GATv2DattBlock, tune.GATv2EdgeCoef, GATv2BackwardMode = red, edge, mode
	}(tune.GATv2DattBlock, tune.GATv2EdgeCoef, GATv2BackwardMode)
	sums := []string{"gatv2_bwd_dst_", "gatv2_bwd_dsts_", "gatv2_bwd_srce_", "gatv2_bwd_dste_"}
	for _, tc := range []struct {
		heads, c int
		mode     GATv2Backward
		edge     bool
	}{{1, 256, GATv2Save, false}, {1, 256, GATv2Recompute, false}, {1, 256, GATv2Auto, true}, {2, 64, GATv2Auto, true}, {3, 12, GATv2Recompute, false}, {4, 16, GATv2Save, true}} {
		for _, red := range []bool{false, true} {
			what := fmt.Sprintf("%dx%d mode %d edge %t red %t", tc.heads, tc.c, tc.mode, tc.edge, red)
			tune.GATv2DattBlock, tune.GATv2EdgeCoef, GATv2BackwardMode = red, tc.edge, tc.mode
			d, drv := openRecorder(t)
			g := starGraph(t, d, 300) // heavy rows: the passes over their tiles too
			hc := tc.heads * tc.c
			mk := func(r, c int) *Tensor { return emptyOn(t, d, r, c) }
			n := g.n
			xl, xr, att, dout := mk(n, hc), mk(n, hc), mk(1, hc), mk(n, hc)
			fw, err := GATv2ForwardLR(g, xl, xr, att, tc.heads, tc.c, 0.2, AttentionDropout{})
			if err != nil {
				t.Fatal(err)
			}
			drv.trace = nil
			if fw.SourceFirst() {
				err = fw.BackwardSrc(g, xl, xr, att, dout, mk(n, hc))
				if err == nil {
					err = fw.BackwardDst(g, xl, xr, att, dout, mk(n, hc), mk(1, hc))
				}
			} else {
				err = fw.BackwardDst(g, xl, xr, att, dout, mk(n, hc), mk(1, hc))
				if err == nil {
					err = fw.BackwardSrc(g, xl, xr, att, dout, mk(n, hc))
				}
			}
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			fw.Free()
			k, _ := gatShape(tc.c)
			seen := 0
			for _, l := range drv.trace {
				wantShared, wantRed := 0, uint64(0)
				if slices.ContainsFunc(sums, func(p string) bool { return strings.HasPrefix(l.kernel, p) }) {
					seen++
					if red {
						wantShared, wantRed = l.block[0]/k.g*k.width()*4, 1
					}
					if got := l.args[len(l.args)-1]; got != wantRed {
						t.Errorf("%s: %s's last argument %d, want %d", what, l.kernel, got, wantRed)
					}
				}
				if l.shared != wantShared {
					t.Errorf("%s: %s with %d bytes of dynamic shared memory, want %d", what, l.kernel, l.shared, wantShared)
				}
			}
			if seen == 0 {
				t.Errorf("%s: no pass that sums att's gradient among %d launches", what, len(drv.trace))
			}
		}
	}
}

// TestGATv2EdgeAuto checks tune.GATv2EdgeAuto's choice of the
// edge-coefficient backward: in GATv2Auto mode, float32 and bfloat16
// alike, at the widths that have the kernels and within edgeCoefCap (a
// quarter of a GPU's memory under 32 GiB); never with it off, and always
// (within the same limits) with tune.GATv2EdgeCoef.
func TestGATv2EdgeAuto(t *testing.T) {
	defer func(coef, auto bool, mode GATv2Backward) {
		tune.GATv2EdgeCoef, tune.GATv2EdgeAuto, GATv2BackwardMode = coef, auto, mode
	}(tune.GATv2EdgeCoef, tune.GATv2EdgeAuto, GATv2BackwardMode)
	const arxiv, products = 2501829, 126167309
	for _, tc := range []struct {
		edges, heads, c int
		p               float32
		mode            GATv2Backward
		coef, auto      bool
		want            bool
	}{
		{products, 1, 256, 0, GATv2Auto, false, true, true},
		{products, 1, 256, 0, GATv2Auto, false, false, false},
		{products, 1, 256, 0.1, GATv2Auto, false, true, true}, // float32: with attention dropout too
		{products, 1, 256, 0, GATv2Recompute, false, true, false},
		{products, 1, 256, 0, GATv2Save, false, true, false},
		{products, 4, 64, 0, GATv2Auto, false, true, true},
		{products, 1, 300, 0, GATv2Auto, false, true, false}, // masked: no kernels
		{products, 1, 1024, 0, GATv2Auto, false, true, false},
		{products, 8, 256, 0, GATv2Auto, false, true, false}, // 40 GB of edges
		{arxiv, 1, 256, 0, GATv2Auto, false, true, true},     // float32: where the edges are saved too
		{arxiv, 1, 256, 0, GATv2Save, false, true, false},
		{arxiv, 1, 256, 0, GATv2Auto, true, false, true},
		{products, 1, 256, 0, GATv2Save, true, false, true},
	} {
		tune.GATv2EdgeCoef, tune.GATv2EdgeAuto, GATv2BackwardMode = tc.coef, tc.auto, tc.mode
		k, _ := gatShape(tc.c)
		a := &GATv2{Heads: tc.heads, Channels: tc.c, Dropout: AttentionDropout{P: tc.p}}
		if got := a.edgeCoef(&Graph{edges: tc.edges}, k, false); got != tc.want {
			t.Errorf("%d edges, %dx%d, dropout %g, mode %d, GATv2EdgeCoef %t, GATv2EdgeAuto %t: edgeCoef %t, want %t",
				tc.edges, tc.heads, tc.c, tc.p, tc.mode, tc.coef, tc.auto, got, tc.want)
		}
	}
	// In bfloat16 too, where the edges would be saved (arxiv-sized, or
	// with attention dropout) as where the backward would recompute.
	tune.GATv2EdgeCoef, tune.GATv2EdgeAuto, GATv2BackwardMode = false, true, GATv2Auto
	for _, tc := range []struct {
		edges int
		p     float32
		mode  GATv2Backward
		want  bool
	}{{arxiv, 0, GATv2Auto, true}, {arxiv, 0.1, GATv2Auto, true}, {products, 0, GATv2Auto, true}, {arxiv, 0, GATv2Save, false}} {
		GATv2BackwardMode = tc.mode
		k, _ := gatShape(256)
		a := &GATv2{Heads: 1, Channels: 256, Dropout: AttentionDropout{P: tc.p}}
		if got := a.edgeCoef(&Graph{edges: tc.edges}, k, true); got != tc.want {
			t.Errorf("bfloat16 1x256, %d edges, dropout %g, mode %d: edgeCoef %t, want %t", tc.edges, tc.p, tc.mode, got, tc.want)
		}
	}
	// The products-sized layer's 4.5 GB of per-edge values: on a GPU of 80
	// or 24 GiB, not of 16 (a quarter is 4 GiB), nor on one whose memory
	// the driver did not give (edgeCoefLimit, 8 GiB, then holds them).
	tune.GATv2EdgeCoef, tune.GATv2EdgeAuto, GATv2BackwardMode = false, true, GATv2Auto
	k, _ := gatShape(256)
	a := &GATv2{Heads: 1, Channels: 256}
	for _, tc := range []struct {
		mem  int64
		want bool
	}{{80 << 30, true}, {24 << 30, true}, {16 << 30, false}, {0, true}} {
		if got := a.edgeCoef(&Graph{edges: products, dev: &Device{memTotal: tc.mem}}, k, false); got != tc.want {
			t.Errorf("products-sized 1x256 on a GPU of %d GiB: edgeCoef %t, want %t", tc.mem>>30, got, tc.want)
		}
	}
}

// TestGATv2DattBlock is TestGATv2BF16 and TestGATv2EdgeCoef with att's
// gradient summed per block (tune.GATv2DattBlock) on the device: every
// pass that sums it (recomputing, saved-edge and edge-coefficient, their
// launch-bounded variants), float32 and bfloat16 in both lane layouts,
// masked widths, several heads (a block's groups meeting one head or
// several), attention dropout, and heavy rows split into edge tiles,
// whose passes sum it too. TestGATv2DattBlockEmulated checks the sum's
// indexing on the CPU.
func TestGATv2DattBlock(t *testing.T) {
	// Each case costs about 3 s on the device host (TestGATv2EdgeCoef's
	// 11 took 31 s on the H200), most of it the float64 reference.
	testGATv2BF16(t, []gatv2BF16Case{
		{1, 256, GATv2Save, 0.3, "red"}, {1, 256, GATv2Recompute, 0, "red"}, {4, 16, GATv2Save, 0.1, "red"},
		{2, 12, GATv2Recompute, 0, "red"}, {1, 300, GATv2Save, 0, "red"}, {3, 32, GATv2Save, 0, "red"},
		{2, 64, GATv2Recompute, 0, "lb4-red"},
		{1, 256, GATv2Auto, 0.3, "edge-red"}, {2, 64, GATv2Auto, 0, "edge-red"}, {1, 512, GATv2Auto, 0.1, "edge-red"},
		{1, 256, GATv2Auto, 0, "edge-bal-red"},
	})
}
