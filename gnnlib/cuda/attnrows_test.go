package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
)

// recordDriver is a driver without a GPU: allocations are addresses that
// are never dereferenced, copies to the host read zeros, and launches are
// recorded with their argument count, so that the launch code of the
// attention passes runs in any build and on any machine.
type recordDriver struct {
	next     uintptr
	launches []launchRec
	fail     string // a kernel whose launches fail
	// trace is every launch and fill as the device would run them, in
	// order, whether launched one by one or in a graph (replay_test.go).
	trace []graphNode
	// graphs counts the graphs made and updates their nodes updated.
	graphs, updates int
}

type launchRec struct {
	kernel string
	args   int
	grid   [3]int
	block  [3]int
	shared int
}

func (r *recordDriver) name() string { return "record (no GPU)" }
func (r *recordDriver) sms() int     { return 4 }
func (r *recordDriver) alloc(n int64) (uintptr, error) {
	r.next += 1 << 20
	p := r.next
	r.next += uintptr(n)
	return p, nil
}
func (r *recordDriver) free(uintptr) error { return nil }
func (r *recordDriver) allocHost(n int64) (unsafe.Pointer, error) {
	b := make([]byte, n)
	return unsafe.Pointer(&b[0]), nil
}
func (r *recordDriver) freeHost(unsafe.Pointer) error                   { return nil }
func (r *recordDriver) htod(uintptr, unsafe.Pointer, int64, bool) error { return nil }
func (r *recordDriver) dtoh(dst unsafe.Pointer, _ uintptr, n int64) error {
	clear(unsafe.Slice((*byte)(dst), n))
	return nil
}
func (r *recordDriver) dtod(uintptr, uintptr, int64) error { return nil }
func (r *recordDriver) memsetD32(dst uintptr, v uint32, n int64) error {
	r.trace = append(r.trace, graphNode{dst: dst, v: v, n: n})
	return nil
}
func (r *recordDriver) sync() error                             { return nil }
func (r *recordDriver) timeStart() error                        { return nil }
func (r *recordDriver) timeStop() (float64, error)              { return 0, nil }
func (r *recordDriver) streamHandle() uintptr                   { return 0 }
func (r *recordDriver) memInfo() (free, total int64, err error) { return 1 << 40, 1 << 40, nil }
func (r *recordDriver) close() error                            { return nil }
func (r *recordDriver) launch(kernel string, grid, block [3]int, shared int, args []uint64) error {
	r.launches = append(r.launches, launchRec{kernel, len(args), grid, block, shared})
	r.trace = append(r.trace, graphNode{kernel: kernel, grid: grid, block: block, shared: shared, args: slices.Clone(args)})
	if kernel == r.fail {
		return fmt.Errorf("record: launch of %s fails", kernel)
	}
	return nil
}

// openRecorder is Open on a recordDriver.
func openRecorder(t testing.TB) (*Device, *recordDriver) {
	// The tests read drv's launch list right after their calls, so each
	// launch waits for the driver here (tune.AsyncLaunch would leave it in
	// flight on the device goroutine).
	async := tune.AsyncLaunch
	tune.AsyncLaunch = false
	t.Cleanup(func() { tune.AsyncLaunch = async })
	drv := &recordDriver{}
	return openOn(t, drv, drv.name()), drv
}

// openOn opens a Device on drv, a test driver, described as desc, with
// its device goroutine; the test's cleanup closes it.
func openOn(t testing.TB, drv driver, desc string) *Device {
	d := &Device{work: make(chan func(), 256), done: make(chan struct{}), drv: drv, desc: desc, nsm: drv.sms()}
	d.be = &backend{Device: d}
	d.pool.init(drv)
	go func() {
		d.runWork()
		close(d.done)
	}()
	t.Cleanup(func() { d.Close() })
	return d
}

// ptxParams returns the number of parameters of each kernel in the PTX
// (gnn.ptx, sm80.ptx and sm90a.ptx).
func ptxParams() map[string]int {
	params := map[string]int{}
	cur := ""
	for _, line := range strings.Split(ptxSource+"\n"+ptxSM80+"\n"+ptxSM90a, "\n") {
		if name, ok := strings.CutPrefix(line, ".visible .entry "); ok {
			cur = strings.TrimSuffix(name, "(")
			params[cur] = 0
			continue
		}
		if cur == "" {
			continue
		}
		if strings.Contains(line, ".param") {
			params[cur]++
		}
		if strings.HasPrefix(strings.TrimSpace(line), ")") {
			cur = ""
		}
	}
	return params
}

// starGraph is a graph of n nodes with a self-loop each, every node an
// in-neighbour of node 0 and node 1 an in-neighbour of every node: node
// 0's in-row and node 1's out-row are heavy past heavyTile.
func starGraph(t *testing.T, d *Device, n int) *Graph {
	var src, dst []int32
	for v := 0; v < n; v++ {
		src, dst = append(src, int32(v)), append(dst, int32(v))
		if v != 0 {
			src, dst = append(src, int32(v)), append(dst, 0)
		}
		if v != 1 {
			src, dst = append(src, 1), append(dst, int32(v))
		}
	}
	ptr, idx := csrOf(n, dst, src)
	tptr, tidx := csrOf(n, src, dst)
	g, err := NewGraphCSR(d, n, ptr, idx, nil, tptr, tidx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// csrOf sorts the pairs (key, val) by key into CSR.
func csrOf(n int, key, val []int32) ([]int32, []int32) {
	ptr := make([]int32, n+1)
	for _, k := range key {
		ptr[k+1]++
	}
	for i := 0; i < n; i++ {
		ptr[i+1] += ptr[i]
	}
	next := append([]int32(nil), ptr[:n]...)
	out := make([]int32, len(val))
	for i, k := range key {
		out[next[k]] = val[i]
		next[k]++
	}
	return ptr, out
}

// TestAttentionSplitLaunches runs the launch code of every fused attention
// pass on a graph with heavy rows, split and not, and checks each launch
// against the PTX: the kernel exists and takes as many parameters as the
// launch passes, and the split passes launch their edge tiles and merges.
func TestAttentionSplitLaunches(t *testing.T) {
	params := ptxParams()
	d, drv := openRecorder(t)
	const n, heads, c = 400, 2, 12
	g := starGraph(t, d, n)
	if g.hv.n != 1 || g.thv.n != 1 {
		t.Fatalf("star graph: %d heavy in-rows and %d heavy out-rows, want 1 and 1 (%v)", g.hv.n, g.thv.n, g)
	}
	hc := heads * c
	mk := func(rows, cols int) *Tensor {
		x, err := d.Empty(rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	mk16 := func(rows, cols int) *BF16Tensor {
		x, err := d.EmptyBF16(rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	passes := map[string]func() error{
		"gatv2": func() error {
			xl, xr, att, dout := mk(n, hc), mk(n, hc), mk(1, hc), mk(n, hc)
			fw, err := GATv2ForwardLR(g, xl, xr, att, heads, c, 0.2, AttentionDropout{})
			if err != nil {
				return err
			}
			for _, mode := range []GATv2Backward{GATv2Save, GATv2Recompute} {
				GATv2BackwardMode = mode
				if err := fw.BackwardDst(g, xl, xr, att, dout, mk(n, hc), mk(1, hc)); err != nil {
					return err
				}
				if err := fw.BackwardSrc(g, xl, xr, att, dout, mk(n, hc)); err != nil {
					return err
				}
			}
			GATv2BackwardMode = GATv2Auto
			return nil
		},
		"gatv2_bf16": func() error {
			xl, xr, att, dout := mk16(n, hc), mk16(n, hc), mk(1, hc), mk16(n, hc)
			fw, err := GATv2ForwardBF16(g, xl, xr, att, heads, c, 0.2, AttentionDropout{})
			if err != nil {
				return err
			}
			for _, mode := range []GATv2Backward{GATv2Save, GATv2Recompute} {
				GATv2BackwardMode = mode
				if err := fw.BackwardDstBF16(g, xl, xr, att, dout, mk16(n, hc), mk(1, hc)); err != nil {
					return err
				}
				if err := fw.BackwardSrcBF16(g, xl, xr, att, dout, mk16(n, hc)); err != nil {
					return err
				}
			}
			GATv2BackwardMode = GATv2Auto
			// The float32 entry points refuse a bfloat16 pass.
			if err := fw.BackwardDst(g, mk(n, hc), mk(n, hc), att, mk(n, hc), mk(n, hc), mk(1, hc)); err == nil {
				return fmt.Errorf("BackwardDst after GATv2ForwardBF16 succeeded")
			}
			return nil
		},
		"transformer": func() error {
			q, k, v, dout := mk(n, hc), mk(n, hc), mk(n, hc), mk(n, hc)
			fw, err := TransformerForward(g, q, k, v, heads, c, 0.3, AttentionDropout{P: 0.1, Seed: 1})
			if err != nil {
				return err
			}
			if err := fw.Backward(g, q, k, v, dout, mk(n, hc), mk(n, hc), mk(n, hc)); err != nil {
				return err
			}
			qkvs := mk(n, 4*hc)
			ff, err := TransformerForwardFused(g, qkvs, heads, c, 0.3, AttentionDropout{})
			if err != nil {
				return err
			}
			return ff.BackwardFused(g, qkvs, dout, mk(n, 3*hc))
		},
		"gatv2_edge": func() error {
			// The edge-coefficient backward (tune.GATv2EdgeCoef) at an
			// exact width, float32 and both bfloat16 layouts, in its order
			// (BackwardSrc first) and in the other, which runs the
			// saved-edge passes.
			defer func(on, w bool, v string) { tune.GATv2EdgeCoef, BF16WideLoads, tune.GATv2EdgeVariant = on, w, v }(tune.GATv2EdgeCoef, BF16WideLoads, tune.GATv2EdgeVariant)
			tune.GATv2EdgeCoef = true
			const c = 64
			xl, xr, att, dout := mk(n, heads*c), mk(n, heads*c), mk(1, heads*c), mk(n, heads*c)
			fw, err := GATv2ForwardLR(g, xl, xr, att, heads, c, 0.2, AttentionDropout{P: 0.1, Seed: 2})
			if err != nil {
				return err
			}
			if !fw.SourceFirst() {
				return fmt.Errorf("GATv2ForwardLR at %dx%d with tune.GATv2EdgeCoef: not SourceFirst", heads, c)
			}
			for _, first := range []bool{true, false} {
				if first {
					err = fw.BackwardSrc(g, xl, xr, att, dout, mk(n, heads*c))
				}
				if err == nil {
					err = fw.BackwardDst(g, xl, xr, att, dout, mk(n, heads*c), mk(1, heads*c))
				}
				if err == nil && !first {
					err = fw.BackwardSrc(g, xl, xr, att, dout, mk(n, heads*c))
				}
				if err != nil {
					return err
				}
			}
			fw.Free()
			// The edge passes, then (called in the other order) the
			// saved-edge ones, which dropout selects.
			for _, k := range []string{"gatv2_fwde_16_1", "gatv2_bwd_dd_16_1", "gatv2_bwd_srce_16_1", "gatv2_bwd_dste_16_1", "gatv2_bwd_dsts_16_1", "gatv2_bwd_srcs_16_1"} {
				if !slices.ContainsFunc(drv.launches, func(l launchRec) bool { return l.kernel == k }) {
					return fmt.Errorf("no launch of %s: %v", k, drv.launches)
				}
			}
			// 1x256 in both bfloat16 layouts (the wide one runs the other
			// passes but with "bal" and "balcp"), with and without the variants
			// (tune.GATv2EdgeVariant), and in float32 with them.
			// "balcp" launches its sm80 source pass on a GPU of compute
			// capability 8.0 or later, as the description says.
			desc := d.desc
			defer func() { d.desc = desc }()
			variants := []string{"", "lb3", "e1", "bal", "balcp"}
			for i := range 2 * len(variants) {
				wide := i%2 == 1
				BF16WideLoads, tune.GATv2EdgeVariant = wide, variants[i/2]
				d.desc = desc
				if variants[i/2] == "balcp" {
					d.desc = "record (sm_90, no GPU)"
				}
				xl, xr, att, dout := mk16(n, 256), mk16(n, 256), mk(1, 256), mk16(n, 256)
				fw, err := GATv2ForwardBF16(g, xl, xr, att, 1, 256, 0.2, AttentionDropout{})
				if err != nil {
					return err
				}
				// The wide layout has the ballot variants' kernels only.
				if want := !wide || strings.HasPrefix(variants[i/2], "bal"); fw.SourceFirst() != want {
					return fmt.Errorf("GATv2ForwardBF16 at 1x256, wide %t, variant %q: SourceFirst %t", wide, variants[i/2], fw.SourceFirst())
				}
				src := func() error { return fw.BackwardSrcBF16(g, xl, xr, att, dout, mk16(n, 256)) }
				dst := func() error { return fw.BackwardDstBF16(g, xl, xr, att, dout, mk16(n, 256), mk(1, 256)) }
				if !fw.SourceFirst() {
					src, dst = dst, src
				}
				if err := src(); err != nil {
					return err
				}
				if err := dst(); err != nil {
					return err
				}
				fw.Free()
			}
			for _, v := range variants[1:] {
				tune.GATv2EdgeVariant = v
				d.desc = desc
				if v == "balcp" {
					d.desc = "record (sm_90, no GPU)"
				}
				xl32, xr32, att32, dout32 := mk(n, 256), mk(n, 256), mk(1, 256), mk(n, 256)
				fw, err = GATv2ForwardLR(g, xl32, xr32, att32, 1, 256, 0.2, AttentionDropout{})
				if err == nil {
					err = fw.BackwardSrc(g, xl32, xr32, att32, dout32, mk(n, 256))
				}
				if err == nil {
					err = fw.BackwardDst(g, xl32, xr32, att32, dout32, mk(n, 256), mk(1, 256))
				}
				if err != nil {
					return err
				}
				fw.Free()
			}
			tune.GATv2EdgeVariant, d.desc = "", desc
			for _, k := range []string{"gatv2_fwde_32_2_bf16_lb3", "gatv2_bwd_srce_32_2_bf16_lb3", "gatv2_bwd_srce_32_2_lb3", "gatv2_bwd_srce_32_2_bf16",
				"gatv2_bwd_srce_32_2_e1", "gatv2_bwd_srce_32_2_bf16_e1", "gatv2_fwde_32_2_lb3", "gatv2_bwd_dsts_32_2_bf16w",
				"gatv2_fwde_32_2_bal", "gatv2_bwd_srce_32_2_bal", "gatv2_bwd_dste_32_2_bal",
				"gatv2_fwde_32_2_bf16_bal", "gatv2_bwd_srce_32_2_bf16_bal", "gatv2_bwd_dste_32_2_bf16_bal",
				"sm80_gatv2_bwd_srce_32_2_balcp", "sm80_gatv2_bwd_srce_32_2_bf16_balcp",
				"gatv2_fwde_32_2_bf16w_bal", "gatv2_bwd_dd_32_2_bf16w", "gatv2_bwd_srce_32_2_bf16w_bal", "gatv2_bwd_dste_32_2_bf16w_bal",
				"sm80_gatv2_bwd_srce_32_2_bf16w_balcp"} {
				if !slices.ContainsFunc(drv.launches, func(l launchRec) bool { return l.kernel == k }) {
					return fmt.Errorf("no launch of %s: %v", k, drv.launches)
				}
			}
			// A masked width runs the other passes.
			fw, err = GATv2ForwardLR(g, mk(n, heads*12), mk(n, heads*12), mk(1, heads*12), heads, 12, 0.2, AttentionDropout{})
			if err != nil {
				return err
			}
			if fw.SourceFirst() {
				return fmt.Errorf("GATv2ForwardLR at %dx12 with tune.GATv2EdgeCoef: SourceFirst", heads)
			}
			fw.Free()
			return nil
		},
		"gatv2_bf16w": func() error {
			// 1 x 256: the wide layout's kernels (BF16WideLoads).
			defer func(w bool) { BF16WideLoads = w }(BF16WideLoads)
			BF16WideLoads = true
			xl, xr, att, dout := mk16(n, 256), mk16(n, 256), mk(1, 256), mk16(n, 256)
			fw, err := GATv2ForwardBF16(g, xl, xr, att, 1, 256, 0.2, AttentionDropout{P: 0.1, Seed: 2})
			if err != nil {
				return err
			}
			if err := fw.BackwardDstBF16(g, xl, xr, att, dout, mk16(n, 256), mk(1, 256)); err != nil {
				return err
			}
			if err := fw.BackwardSrcBF16(g, xl, xr, att, dout, mk16(n, 256)); err != nil {
				return err
			}
			qkvs := mk16(n, 4*256)
			ff, err := TransformerForwardFusedBF16(g, qkvs, 1, 256, 0.3, AttentionDropout{})
			if err != nil {
				return err
			}
			return ff.BackwardFusedBF16(g, qkvs, dout, mk16(n, 3*256))
		},
		"transformer_bf16": func() error {
			q, k, v, dout := mk16(n, hc), mk16(n, hc), mk16(n, hc), mk16(n, hc)
			fw, err := TransformerForwardBF16(g, q, k, v, heads, c, 0.3, AttentionDropout{P: 0.1, Seed: 1})
			if err != nil {
				return err
			}
			if err := fw.BackwardBF16(g, q, k, v, dout, mk16(n, hc), mk16(n, hc), mk16(n, hc)); err != nil {
				return err
			}
			if err := fw.Backward(g, mk(n, hc), mk(n, hc), mk(n, hc), mk(n, hc), mk(n, hc), mk(n, hc), mk(n, hc)); err == nil {
				return fmt.Errorf("Backward after TransformerForwardBF16 succeeded")
			}
			qkvs := mk16(n, 4*hc)
			ff, err := TransformerForwardFusedBF16(g, qkvs, heads, c, 0.3, AttentionDropout{})
			if err != nil {
				return err
			}
			return ff.BackwardFusedBF16(g, qkvs, dout, mk16(n, 3*hc))
		},
		"gat_bf16": func() error {
			h, as, ad, dout := mk16(n, hc), mk(n, heads), mk(n, heads), mk16(n, hc)
			fw, err := GATForwardBF16(g, h, as, ad, heads, 0.2, AttentionDropout{P: 0.2, Seed: 3})
			if err != nil {
				return err
			}
			if err := fw.Backward(g, mk(n, hc), as, ad, mk(n, hc), mk(n, hc), mk(n, heads), mk(n, heads)); err == nil {
				return fmt.Errorf("Backward after GATForwardBF16 succeeded")
			}
			return fw.BackwardBF16(g, h, as, ad, dout, mk16(n, hc), mk(n, heads), mk(n, heads))
		},
		"gat": func() error {
			h, as, ad, dout := mk(n, hc), mk(n, heads), mk(n, heads), mk(n, hc)
			fw, err := GATForward(g, h, as, ad, heads, 0.2, AttentionDropout{P: 0.2, Seed: 3})
			if err != nil {
				return err
			}
			return fw.Backward(g, h, as, ad, dout, mk(n, hc), mk(n, heads), mk(n, heads))
		},
	}
	for name, run := range passes {
		for _, split := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/split=%t", name, split), func(t *testing.T) {
				SplitHeavyRows = split
				defer func() { SplitHeavyRows = true }()
				drv.launches = nil
				if err := run(); err != nil {
					t.Fatal(err)
				}
				merges := 0
				for _, l := range drv.launches {
					want, ok := params[l.kernel]
					if !ok {
						t.Errorf("launch of %s: no such kernel in the PTX", l.kernel)
					} else if l.args != want {
						t.Errorf("launch of %s with %d arguments, the kernel takes %d", l.kernel, l.args, want)
					}
					if strings.HasPrefix(l.kernel, "attn_merge_") {
						merges++
					}
					// attn_merge_sum may sum a float32 output of a
					// bfloat16 pass (GAT's score gradients).
					if strings.Contains(name, "_bf16") && l.kernel != "transpose_perm" && l.kernel != "attn_merge_sum" && !strings.Contains(l.kernel, "_bf16") {
						t.Errorf("bfloat16 pass launched the float32 kernel %s", l.kernel)
					}
					if name == "gatv2_bf16w" && !strings.HasPrefix(l.kernel, "attn_merge") && l.kernel != "transpose_perm" && !strings.Contains(l.kernel, "_bf16w") {
						t.Errorf("the wide bfloat16 pass launched %s", l.kernel)
					}
				}
				if split && merges == 0 {
					t.Errorf("split passes launched no merge: %v", drv.launches)
				}
				if !split && merges != 0 {
					t.Errorf("whole-row passes launched %d merges: %v", merges, drv.launches)
				}
			})
		}
	}
}

// TestSplitHeavyRowsAgree runs every fused attention pass on a graph with
// a 16k-edge in-row and a 16k-edge out-row (devicetest.StarGraph) with
// heavy rows split into edge tiles and with one lane group per row, and
// compares the outputs, log-sum-exps and gradients: the tile passes and
// their merges against the row mapping that TestGATv2, TestTransformer
// and TestGATDropout check against the CPU, attention dropout included
// (its mask is a function of the edge, whichever item walks it). Outputs
// start as NaN, so that a row neither pass wrote shows.
func TestSplitHeavyRowsAgree(t *testing.T) {
	d := openOrSkip(t)
	defer func(old GATv2Backward) { GATv2BackwardMode = old }(GATv2BackwardMode)
	defer func() { SplitHeavyRows = true }()
	const n = 16000
	dg, err := NewGraph(d, devicetest.StarGraph(t, n, 48000))
	if err != nil {
		t.Fatal(err)
	}
	defer dg.Free()
	if dg.hv.n == 0 || dg.thv.n == 0 {
		t.Fatalf("star graph without heavy rows in both directions: %v", dg)
	}
	r := rand.New(rand.NewPCG(5, 6))
	in := func(rows, cols int) *Tensor { return mustT(t, d, randSlice(r, rows*cols), rows, cols) }
	out := func(rows, cols int) *Tensor { return poisoned(t, d, rows, cols) }
	type result map[string]*Tensor
	type tcase struct {
		name string
		run  func() result
	}
	var cases []tcase
	for _, c := range []struct {
		heads, c int
		mode     GATv2Backward
		p        float32
	}{{2, 64, GATv2Save, 0}, {2, 64, GATv2Recompute, 0}, {1, 256, GATv2Save, 0.3}, {1, 12, GATv2Recompute, 0}} {
		hc := c.heads * c.c
		xl, xr, att, dout := in(n, hc), in(n, hc), in(1, hc), in(n, hc)
		cases = append(cases, tcase{fmt.Sprintf("GATv2 %dx%d mode %d dropout %g", c.heads, c.c, c.mode, c.p), func() result {
			GATv2BackwardMode = c.mode
			a, err := GATv2ForwardLR(dg, xl, xr, att, c.heads, c.c, 0.2, AttentionDropout{P: c.p, Seed: 9})
			if err != nil {
				t.Fatal(err)
			}
			res := result{"out": a.Out, "lse": a.LSE, "dxr": out(n, hc), "datt": out(1, hc), "dxl": out(n, hc)}
			if err := a.BackwardDst(dg, xl, xr, att, dout, res["dxr"], res["datt"]); err != nil {
				t.Fatal(err)
			}
			if err := a.BackwardSrc(dg, xl, xr, att, dout, res["dxl"]); err != nil {
				t.Fatal(err)
			}
			return res
		}})
	}
	for _, c := range []struct {
		heads, c int
		p        float32
		fused    bool
	}{{2, 32, 0, false}, {4, 16, 0.2, false}, {1, 64, 0, true}} {
		hc := c.heads * c.c
		q, k, v, qkvs, dout := in(n, hc), in(n, hc), in(n, hc), in(n, 4*hc), in(n, hc)
		cases = append(cases, tcase{fmt.Sprintf("Transformer %dx%d dropout %g fused %t", c.heads, c.c, c.p, c.fused), func() result {
			drop := AttentionDropout{P: c.p, Seed: 4}
			if c.fused {
				a, err := TransformerForwardFused(dg, qkvs, c.heads, c.c, 0.125, drop)
				if err != nil {
					t.Fatal(err)
				}
				res := result{"out": a.Out, "lse": a.LSE, "dqkv": out(n, 3*hc)}
				if err := a.BackwardFused(dg, qkvs, dout, res["dqkv"]); err != nil {
					t.Fatal(err)
				}
				return res
			}
			a, err := TransformerForward(dg, q, k, v, c.heads, c.c, 0.125, drop)
			if err != nil {
				t.Fatal(err)
			}
			res := result{"out": a.Out, "lse": a.LSE, "dq": out(n, hc), "dk": out(n, hc), "dv": out(n, hc)}
			if err := a.Backward(dg, q, k, v, dout, res["dq"], res["dk"], res["dv"]); err != nil {
				t.Fatal(err)
			}
			return res
		}})
	}
	for _, c := range []struct {
		heads, c int
		p        float32
	}{{2, 40, 0}, {2, 40, 0.2}, {1, 300, 0}} {
		hc := c.heads * c.c
		h, as, ad, dout := in(n, hc), in(n, c.heads), in(n, c.heads), in(n, hc)
		cases = append(cases, tcase{fmt.Sprintf("GAT %dx%d dropout %g", c.heads, c.c, c.p), func() result {
			a, err := GATForward(dg, h, as, ad, c.heads, 0.2, AttentionDropout{P: c.p, Seed: 2})
			if err != nil {
				t.Fatal(err)
			}
			res := result{"out": a.Out, "lse": a.LSE, "dh": out(n, hc), "das": out(n, c.heads), "dad": out(n, c.heads)}
			if err := a.Backward(dg, h, as, ad, dout, res["dh"], res["das"], res["dad"]); err != nil {
				t.Fatal(err)
			}
			return res
		}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			SplitHeavyRows = false
			whole := c.run()
			SplitHeavyRows = true
			split := c.run()
			for k, w := range whole {
				if e := relErr(host(t, split[k]), f64(host(t, w))); e > 1e-4 || math.IsNaN(e) {
					t.Errorf("%s: split heavy rows against whole rows: relative error %.3g", k, e)
				}
			}
		})
	}
}
