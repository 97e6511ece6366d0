// Command gnnbench times gnnlib/cuda on synthetic graphs shaped like Cora,
// ogbn-arxiv and ogbn-products: SpMM kernels (time and attained bandwidth),
// one GATv2 layer forward+backward, and full-batch GCN and GATv2 training
// epochs (forward, backward, Adam), hand-written with this package's
// kernels and, in the api part, GCN, GraphSAGE, GAT and GATv2 written with
// gnnlib/nn on device tensors; each with the allocator's peak memory.
// The rmat part does the attention layers and epochs on R-MAT graphs with
// Graph500's parameters (-rmat scales, 17 and 20 by default), whose hubs
// are the heavy rows the degree-aware attention splits: each with the
// split and with one lane group per row; -edges writes those graphs'
// edges for pyg_bench.py (RMAT_DIR), so that PyG runs on the same edges.
// It prints one tab-separated line per measurement, prefixed "go\t", which
// bench/run.sh joins with bench/pyg_bench.py's.
//
// The sampled part trains a 3-layer GraphSAGE on neighbour-sampled
// mini-batches of the arxiv-sized graph (fan-outs 15, 10, 5; batches of
// 1024) with gnnlib/nn on the device, data.NeighborLoader sampling on
// background goroutines: time per batch, the step's and the sampler's
// share; with -products, also the products-sized graph sampled on the
// device. With -sampled-ab (the default), the device feeds run first as
// before (the sampler's host work under its lock, fresh memory every
// batch, its launches and download waited for on the device goroutine,
// two batches in flight), then as now (products-sized, also with two
// batches in flight and with eight sampler goroutines); the split of the sampler's time per call goes to
// standard error, as does how many launches a batch the device recorded
// and replayed (AutoReplay) and how far the allocator's reserve grew
// over the timed batches (its misses). With -sampled-step-ab (the default), the
// products-sized device feed runs again kernel by kernel (AutoReplay off)
// with launches waited for, then with the training step's host switches
// turned on one after another: launches and fills posted
// (tune.AsyncLaunch), copies posted too (tune.PostFillCopy), SAGEConv's
// terms freed at once (nn.SAGEFreeSums); then with only the terms freed,
// the rest as it is; then under Autocast(BFloat16), as it is and kernel
// by kernel with the three switches on.
//
// The nnbf16 part (not run by default) times the arxiv-sized GCN and GATv2
// epochs of gnnlib/nn in float32 and under tensor.Autocast(BFloat16)
// side by side, and bfloat16 again with the nnbf16 helper's switches off
// (nnbf16.go).
//
// The attnbf16 part (not run by default) times the arxiv-sized GATv2 and
// TransformerConv layers (x·W, the fused attention, its backward passes
// and the weight gradients) in float32 and with the bfloat16 kernels side
// by side, with each one's peak (attnbf16.go).
//
// The autoreplay part (not run by default) times the Cora- and
// arxiv-sized gnnlib/nn epochs kernel by kernel, replayed as CUDA graphs
// and with the automatic choice (cuda.AutoReplay), side by side
// (autoreplay.go).
//
// The wgrad part times the weight gradients Xᵀ·dY of the Cora- and
// arxiv-sized layers (wgrad.go) for each -gemm family; bench/wgrad_torch.py
// is its torch.matmul anchor.
//
// The bf16epoch part (not run by default) times the hand-written GCN
// epoch of the gcn part in float32 and with bfloat16 storage side by side,
// arxiv- and products-sized (gcnEpochBF16, bf16.go).
//
// Usage: gnnbench [-only spmm,gat,gat1,tf,gcn,gatv2,api,autoreplay,reorder,int8,gemm,wgrad,bf16,bf16epoch,attnbf16,nnbf16,rmat,sampled]
// [-products=false] [-reps 10] [-gemm v1,v2] [-rmat 17,20] [-edges dir] [-bf16-attention]
//
// -gemm lists the MatMul kernel families (tune.GEMMKernel) to compare:
// the gemm and wgrad parts time each on the same operands, the gat, gcn
// and api parts (the api part's first runs) run once per family, with the family appended to the variant column; the
// other parts run with the first. Random operands are slices of one pool
// of normal draws (random offsets), generated once in parallel, so that
// the products-sized tensors do not cost seconds of host time each.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/cuda"
	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

var (
	only       = flag.String("only", "spmm,gat,gat1,tf,gcn,gatv2,api,reorder,int8,gemm,bf16,rmat", "comma-separated parts to run (bf16: tensor-core GEMM and SpMM in bfloat16 against float32, bf16.go)")
	products   = flag.Bool("products", true, "include the products-sized graph")
	reps       = flag.Int("reps", 10, "timed repetitions (median reported)")
	gemms      = flag.String("gemm", string(tune.GEMM), "comma-separated MatMul kernel families (v1, v2, v2k8, v2n, v2s, tf32x3)")
	gatModes   = flag.String("gatv2", "auto", "comma-separated GATv2 backward modes for the gat and gatv2 parts: auto, save (saved edges), recompute")
	rmatScales = flag.String("rmat", "17,20", "comma-separated R-MAT scales of the rmat part")
	edgesDir   = flag.String("edges", "", "directory to write the R-MAT graphs' edges into, for pyg_bench.py (RMAT_DIR)")
	labelsAB   = flag.Bool("labels-ab", true, "in the api part, the arxiv-sized epochs again with CrossEntropy's labels uploaded every call")
	poolGCAB   = flag.Bool("pool-gc-ab", false, "in the api part, the epochs again with the allocator's collections every 1 GiB (tune.PoolGCFixed), as before")
	replaySegs = flag.String("replay-seg", "0", "in the api part, the epochs again with cuda.GraphReplay for each of these cuda.ReplaySegment values (0: segments cut only at calls that wait; empty: none)")
	apiModels  = flag.String("api-models", "gcn,sage,gat,gatv2", "comma-separated models of the api part")
	fastAB     = flag.Bool("fastpaths-ab", false, "in the api part, the epochs again with tensor.ReleaseSpentActivations, nn.GCNAggregateFirst and nn.HandOffBiasGrad off (on by default)")
	actOut     = flag.Bool("actout", nn.ActOutInAttention, "set nn.ActOutInAttention: the nn parts' GATv2 layers hand their fused activation to the attention's backward pass instead of a rebuilt copy of its output")
	bf16Attn   = flag.Bool("bf16-attention", cuda.BF16Attention, "set cuda.BF16Attention: the nn parts' fused attention runs its bfloat16 kernels under Autocast(BFloat16) (the attnbf16 part calls them whatever it says)")
	variants   = flag.String("gatv2-variants", "", "comma-separated tune.GATv2Variant values (lb3, lb4), edge (tune.GATv2EdgeCoef), edge-lb3, edge-e1, edge-bal or edge-balcp (with that tune.GATv2EdgeVariant), each also with a -red or -nored suffix (tune.GATv2DattBlock on or off; unmarked values keep its default), red and nored (the current kernels so), auto and noauto (tune.GATv2EdgeAuto on or off), noedge (tune.GATv2EdgeCoef and GATv2EdgeAuto off): the gat part's layers, the gatv2 part's epochs and the attnbf16 part's GATv2 attention (edge and red: its whole layers) again with each, where gatv2.cu has it")
	edgeCoef   = flag.Bool("edge-coef", tune.GATv2EdgeCoef, "set tune.GATv2EdgeCoef for the whole run (the api and nnbf16 parts' GATv2 layers take it; -gatv2-variants sets it per variant in the gat, gatv2 and attnbf16 parts)")
	edgeAuto   = flag.Bool("edge-auto", tune.GATv2EdgeAuto, "set tune.GATv2EdgeAuto for the whole run, as -edge-coef does tune.GATv2EdgeCoef")
	prefetchAB = flag.Bool("prefetch-ab", false, "the gat part's layers, the gatv2 part's epochs and the attnbf16 part's GATv2 and Transformer attention again with tune.AttnPrefetch off (the kernels loading each step's edge indices in the step)")
	cpuProfile = flag.String("cpuprofile", "", "write a CPU profile of the host (pprof) to this file")
	profile    = flag.Bool("profile", false, "after the api part's arxiv-sized GCN and GATv2 epochs (and the nnbf16 part's, in each format), profile one epoch op by op (api-profile lines)")
)

// gatv2Variants parses -gatv2-variants: "" (the current kernels), then
// its values.
func gatv2Variants() []string {
	vs := []string{""}
	for _, f := range strings.Split(*variants, ",") {
		if f = strings.TrimSpace(f); f != "" {
			vs = append(vs, f)
		}
	}
	return vs
}

// forVariants runs f with the current GATv2 kernels, then with each
// -gatv2-variants value (tune.GATv2Variant, or edge, edge-lb3 and
// edge-e1: edgeVariant) and, with -prefetch-ab, without the edge-index prefetch
// (tune.AttnPrefetch off), kernTag naming each after tag.
func forVariants(tag string, f func()) {
	defer func() { tune.GATv2Variant, tune.AttnPrefetch = "", true; edgeVariant("") }()
	vs := gatv2Variants()
	if *prefetchAB {
		vs = append(vs, "no prefetch")
	}
	for _, v := range vs {
		tune.GATv2Variant, tune.AttnPrefetch, kernTag = variantBase(v), v != "no prefetch", tag
		if v == "no prefetch" || edgeVariant(v) {
			tune.GATv2Variant = ""
		}
		if v != "" {
			kernTag += " [" + v + "]"
		}
		f()
	}
}

// variantBase is the tune.GATv2Variant of the -gatv2-variants value v:
// v without its red or nored marker (lb3 for lb3-red, edge for
// edge-nored), "" for red, nored, auto, noauto, noedge and their marked
// forms.
func variantBase(v string) string {
	base, _ := cutMarker(v)
	if base == "red" || base == "nored" || base == "auto" || base == "noauto" || base == "noedge" {
		return ""
	}
	return base
}

// cutMarker splits the -gatv2-variants value v into its base and its
// tune.GATv2DattBlock marker: "-red" (on) or "-nored" (off), or "" for
// none; red and nored alone are their own bases.
func cutMarker(v string) (base, marker string) {
	for _, m := range []string{"-nored", "-red"} {
		if b, ok := strings.CutSuffix(v, m); ok {
			return b, m
		}
	}
	return v, ""
}

// edgeValues are the -gatv2-variants values (without a marker) that turn
// the edge-coefficient backward on, "edge-" and the
// tune.GATv2EdgeVariant they take.
var edgeValues = []string{"edge", "edge-lb3", "edge-e1", "edge-bal", "edge-balcp"}

// variantDefaults are the switches edgeVariant sets as the library sets
// them, which a value that names none of them keeps.
var variantDefaults = struct {
	datt, auto, coef bool
	edgeV            string
}{tune.GATv2DattBlock, tune.GATv2EdgeAuto, tune.GATv2EdgeCoef, tune.GATv2EdgeVariant}

// edgeVariant sets the edge-coefficient GATv2 backward's switches for
// the -gatv2-variants value v: edge is tune.GATv2EdgeCoef with
// tune.GATv2EdgeVariant "", edge-lb3, edge-e1, edge-bal and edge-balcp
// that with the variant they name; noedge turns tune.GATv2EdgeCoef and
// tune.GATv2EdgeAuto off
// (no layer takes it). It also sets tune.GATv2DattBlock, on for red and
// the values ending in -red, off for nored and the values ending in
// -nored (cutMarker), and tune.GATv2EdgeAuto, on for auto and off for
// noauto (and their marked forms). Every switch a value does not name
// keeps the library's default (variantDefaults), so "" and the plain
// kernel variants (lb3, lb4) time the layers as a notebook runs them. It
// reports whether v was one of the edge values (with or without a
// marker).
func edgeVariant(v string) bool {
	base, marker := cutMarker(v)
	switch {
	case base == "red" || marker == "-red":
		tune.GATv2DattBlock = true
	case base == "nored" || marker == "-nored":
		tune.GATv2DattBlock = false
	default:
		tune.GATv2DattBlock = variantDefaults.datt
	}
	switch base {
	case "auto":
		tune.GATv2EdgeAuto = true
	case "noauto", "noedge":
		tune.GATv2EdgeAuto = false
	default:
		tune.GATv2EdgeAuto = variantDefaults.auto
	}
	v = variantBase(v)
	edge := slices.Contains(edgeValues, v)
	tune.GATv2EdgeCoef, tune.GATv2EdgeVariant = variantDefaults.coef, variantDefaults.edgeV
	if edge {
		tune.GATv2EdgeCoef = true
		tune.GATv2EdgeVariant, _ = strings.CutPrefix(v, "edge-")
		if v == "edge" {
			tune.GATv2EdgeVariant = ""
		}
	}
	if base == "noedge" {
		tune.GATv2EdgeCoef = false
	}
	return edge
}

// kernTag is appended to the variant column while the gat and gcn parts
// run once per -gemm family.
var kernTag string

// csr is a synthetic graph: uniform random edges plus one self-loop per
// node, in CSR by destination, with its transpose and GCN weights.
type csr struct {
	name        string
	n           int
	indptr, idx []int32
	w           []float32
	tptr, tidx  []int32
	tw          []float32
}

// gen draws m edges u→v with u uniform and v uniform (skew=false) or
// v = n·r³ (skew=true: a heavy-tailed in-degree), adds self-loops and
// builds both CSR orders by counting sort.
func gen(name string, n, m int, skew bool, seed uint64) *csr {
	r := rand.New(rand.NewPCG(seed, 99))
	e := m + n
	src := make([]int32, e)
	dst := make([]int32, e)
	for i := 0; i < m; i++ {
		src[i] = int32(r.IntN(n))
		if skew {
			x := r.Float64()
			dst[i] = int32(float64(n) * x * x * x)
		} else {
			dst[i] = int32(r.IntN(n))
		}
	}
	for v := 0; v < n; v++ {
		src[m+v], dst[m+v] = int32(v), int32(v)
	}
	return build(name, n, src, dst)
}

// build makes the csr of the edges src[i]→dst[i]: both CSR orders and
// the GCN weights.
func build(name string, n int, src, dst []int32) *csr {
	e := len(src)
	g := &csr{name: name, n: n}
	g.indptr, g.idx = bucket(n, dst, src)
	g.tptr, g.tidx = bucket(n, src, dst)
	// GCN normalisation: w = 1/sqrt(deg(u) deg(v)) with in-degrees.
	inv := make([]float64, n)
	for v := 0; v < n; v++ {
		inv[v] = 1 / math.Sqrt(float64(g.indptr[v+1]-g.indptr[v]))
	}
	g.w = make([]float32, e)
	for v := 0; v < n; v++ {
		for p := g.indptr[v]; p < g.indptr[v+1]; p++ {
			g.w[p] = float32(inv[v] * inv[g.idx[p]])
		}
	}
	g.tw = make([]float32, e)
	for u := 0; u < n; u++ {
		for p := g.tptr[u]; p < g.tptr[u+1]; p++ {
			g.tw[p] = float32(inv[u] * inv[g.tidx[p]])
		}
	}
	return g
}

// bucket sorts (key, val) pairs by key into CSR; within a row the values
// keep their generation order.
func bucket(n int, key, val []int32) ([]int32, []int32) {
	ptr := make([]int32, n+1)
	for _, k := range key {
		ptr[k+1]++
	}
	for i := 0; i < n; i++ {
		ptr[i+1] += ptr[i]
	}
	next := make([]int32, n)
	copy(next, ptr[:n])
	out := make([]int32, len(val))
	for i, k := range key {
		out[next[k]] = val[i]
		next[k]++
	}
	return ptr, out
}

func (g *csr) upload(d *cuda.Device) *cuda.Graph {
	dg, err := cuda.NewGraphCSR(d, g.n, g.indptr, g.idx, g.w, g.tptr, g.tidx, g.tw)
	check(err)
	return dg
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func must[T any](v T, err error) T {
	check(err)
	return v
}

// pool holds standard normal draws that randT slices.
var pool []float32

// fillPool draws n normals, one generator per CPU.
func fillPool(n int) {
	pool = make([]float32, n)
	parts := runtime.NumCPU()
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		lo, hi := p*n/parts, (p+1)*n/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(p), 77))
			for i := lo; i < hi; i++ {
				pool[i] = float32(r.NormFloat64())
			}
		}()
	}
	wg.Wait()
}

// randT uploads a rows x cols tensor of normal draws times scale, taken at
// a random offset of the pool.
func randT(d *cuda.Device, r *rand.Rand, rows, cols int, scale float32) *cuda.Tensor {
	n := rows * cols
	if n > len(pool) {
		fillPool(max(n, 2*len(pool)))
	}
	x := pool[r.IntN(len(pool)-n+1):][:n]
	if scale != 1 {
		y := make([]float32, n)
		for i, v := range x {
			y[i] = scale * v
		}
		x = y
	}
	return must(d.FromHost(x, rows, cols))
}

// timeit runs fn once to warm up, then reps times with a device sync after
// each, and returns the median in milliseconds.
func timeit(d *cuda.Device, fn func()) float64 {
	fn()
	check(d.Synchronize())
	ts := make([]float64, *reps)
	for i := range ts {
		t0 := time.Now()
		fn()
		check(d.Synchronize())
		ts[i] = float64(time.Since(t0).Microseconds()) / 1000
	}
	sort.Float64s(ts)
	return ts[len(ts)/2]
}

// settle collects what earlier work left for the garbage collector until
// the device's bytes in use stop falling (at most 10 rounds), then resets
// the peak: one collection frees a tensor whose finalizer runs, but what
// only a finalizable object still reached (a model's or optimizer's
// tensors, a previous part's graph) waits for the next one, and so
// counted in the peak of whatever was timed after.
func settle(d *cuda.Device) {
	prev := int64(-1)
	for range 10 {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
		d.ResetPeak() // takes in the blocks the finalizers queued
		in := must(d.MemStats()).InUse
		if in == prev {
			break
		}
		prev = in
	}
}

func peakGiB(d *cuda.Device) float64 {
	s := must(d.MemStats())
	return float64(s.Peak) / (1 << 30)
}

func report(what, graph, variant string, ms, gib float64, extra string) {
	fmt.Printf("go\t%s\t%s\t%s%s\t%.3f\t%.3f\t%s\n", what, graph, variant, kernTag, ms, gib, extra)
}

func main() {
	flag.Parse()
	cuda.BF16Attention = *bf16Attn
	tune.GATv2EdgeCoef, variantDefaults.coef = *edgeCoef, *edgeCoef
	tune.GATv2EdgeAuto, variantDefaults.auto = *edgeAuto, *edgeAuto
	nn.ActOutInAttention = *actOut
	log.SetFlags(0)
	if *bf16GEMMAll != "" {
		k := tune.GEMMBF16Kernel(*bf16GEMMAll)
		if !slices.Contains(tune.GEMMBF16Kernels, k) {
			log.Fatalf("gnnbench: -bf16-gemm-all %q: not one of %v", k, tune.GEMMBF16Kernels)
		}
		tune.GEMMBF16 = k
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	d, err := cuda.Open(0)
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	fmt.Fprintln(os.Stderr, "device:", d)
	parts := map[string]bool{}
	for _, p := range strings.Split(*only, ",") {
		parts[p] = true
	}
	r := rand.New(rand.NewPCG(1, 1))
	var kerns []tune.GEMMKernel
	for _, k := range strings.Split(*gemms, ",") {
		kerns = append(kerns, tune.GEMMKernel(k))
	}
	tune.GEMM = kerns[0]
	modes := strings.Split(*gatModes, ",")
	modeOf := map[string]cuda.GATv2Backward{"auto": cuda.GATv2Auto, "save": cuda.GATv2Save, "recompute": cuda.GATv2Recompute}
	for _, m := range modes {
		if _, ok := modeOf[m]; !ok {
			log.Fatalf("-gatv2 %q: want auto, save or recompute", m)
		}
	}
	cuda.GATv2BackwardMode = modeOf[modes[0]]
	if *products {
		fillPool(2449029 * 256)
	}

	t0 := time.Now()
	cora := gen("cora", 2708, 10556, false, 1)
	arxiv := gen("arxiv", 169343, 2332486, false, 2)
	skew := gen("arxiv-skewed", 169343, 2332486, true, 3)
	var prod *csr
	if *products {
		prod = gen("products", 2449029, 123718280, false, 4)
	}
	fmt.Fprintf(os.Stderr, "graphs generated in %v\n", time.Since(t0))

	if parts["spmm"] {
		for _, g := range []*csr{arxiv, skew, prod} {
			if g == nil {
				continue
			}
			dg := g.upload(d)
			for _, f := range []int{64, 256} {
				x := randT(d, r, g.n, f, 1)
				y := must(d.Empty(g.n, f))
				e := int64(len(g.idx))
				bytes := float64(e*8 + e*int64(f)*4 + int64(g.n)*int64(f)*4 + int64(g.n+1)*4)
				for _, k := range []struct {
					name string
					k    cuda.SpMMKernel
				}{{"vec4", cuda.SpMMVec4}, {"warp", cuda.SpMMWarp}} {
					ms := timeit(d, func() { check(cuda.SpMM(y, dg, x, k.k)) })
					report("spmm", g.name, fmt.Sprintf("F=%d %s", f, k.name), ms, 0, fmt.Sprintf("%.0f GB/s", bytes/ms/1e6))
				}
				x.Free()
				y.Free()
			}
			dg.Free()
		}
	}
	for _, k := range kerns {
		if !parts["gat"] {
			break
		}
		tune.GEMM = k
		for _, mode := range modes {
			cuda.GATv2BackwardMode = modeOf[mode]
			tag := ""
			if len(kerns) > 1 {
				tag = " [" + string(k) + "]"
			}
			if len(modes) > 1 {
				tag += " [" + mode + "]"
			}
			forVariants(tag, func() {
				for _, c := range []struct {
					g     *csr
					fin   int
					h, ch int
				}{{arxiv, 128, 1, 256}, {arxiv, 128, 4, 64}, {prod, 100, 1, 256}} {
					if c.g == nil {
						continue
					}
					gatLayer(d, r, c.g, c.fin, c.h, c.ch)
				}
			})
		}
	}
	tune.GEMM, kernTag = kerns[0], ""
	cuda.GATv2BackwardMode = modeOf[modes[0]]
	if parts["gat1"] {
		for _, c := range []struct {
			h, ch int
		}{{1, 256}, {4, 64}} {
			gat1Layer(d, r, arxiv, 128, c.h, c.ch)
		}
	}
	if parts["tf"] {
		tfLayer(d, r, arxiv, 128, 4, 64)
		if prod != nil {
			tfLayer(d, r, prod, 100, 4, 64)
		}
	}
	if parts["gemm"] {
		gemmRates(d, r, kerns)
	}
	if parts["wgrad"] {
		wgradRates(d, r, kerns)
	}
	if parts["int8"] {
		int8Kernels(d, r, arxiv)
	}
	if parts["bf16"] {
		bf16Part(d, r, []*csr{arxiv, skew, prod})
	}
	if parts["bf16epoch"] {
		gcnEpochBF16(d, r, arxiv, 128, 256, 40, 3)
		if prod != nil {
			gcnEpochBF16(d, r, prod, 100, 256, 47, 3)
		}
	}
	if parts["attnbf16"] {
		attnBF16Part(d, r, arxiv)
	}
	if parts["nnbf16"] {
		nnBF16Epochs(d, arxiv, 128, 256, 40, 3)
	}
	if parts["reorder"] {
		reorder(d, r)
	}
	for _, k := range kerns {
		if !parts["gcn"] {
			break
		}
		tune.GEMM = k
		if len(kerns) > 1 {
			kernTag = " [" + string(k) + "]"
		}
		gcnEpoch(d, r, cora, 1433, 16, 7, 2)
		gcnEpoch(d, r, arxiv, 128, 256, 40, 3)
		if prod != nil {
			gcnEpoch(d, r, prod, 100, 256, 47, 3)
		}
	}
	tune.GEMM, kernTag = kerns[0], ""
	for _, mode := range modes {
		if !parts["gatv2"] {
			break
		}
		cuda.GATv2BackwardMode = modeOf[mode]
		tag := ""
		if len(modes) > 1 {
			tag = " [" + mode + "]"
		}
		forVariants(tag, func() {
			gatEpoch(d, r, cora, 1433, 16, 7, 2)
			gatEpoch(d, r, arxiv, 128, 256, 40, 3)
		})
	}
	cuda.GATv2BackwardMode, kernTag = modeOf[modes[0]], ""
	for _, k := range strings.Split(*apiModels, ",") {
		apiKinds[k] = true
	}
	if parts["api"] {
		// Kernel by kernel, as the variant column says, unless a pass
		// below forces replay; the autoreplay part times the automatic
		// choice.
		autoWas := cuda.AutoReplay
		cuda.AutoReplay = false
		type apiGraph struct {
			g                            *csr
			fin, hidden, classes, layers int
		}
		graphs := []apiGraph{{cora, 1433, 16, 7, 2}, {arxiv, 128, 256, 40, 3}}
		// Once per -gemm family, the family in the variant column when
		// there are several.
		for _, k := range kerns {
			tune.GEMM = k
			if len(kerns) > 1 {
				kernTag = " [" + string(k) + "]"
			}
			for _, g := range graphs {
				apiEpochs(d, g.g, g.fin, g.hidden, g.classes, g.layers)
			}
		}
		tune.GEMM, kernTag = kerns[0], ""
		// The epochs again without the backward pass releasing spent
		// activations, GCNConv aggregating first where it widens and
		// ReLUDropout handing its layer the bias gradient (all three on
		// by default).
		if *fastAB {
			r, a, h := tensor.ReleaseSpentActivations, nn.GCNAggregateFirst, nn.HandOffBiasGrad
			tensor.ReleaseSpentActivations, nn.GCNAggregateFirst, nn.HandOffBiasGrad = false, false, false
			kernTag = " [fast paths off]"
			for _, g := range graphs {
				apiEpochs(d, g.g, g.fin, g.hidden, g.classes, g.layers)
			}
			tensor.ReleaseSpentActivations, nn.GCNAggregateFirst, nn.HandOffBiasGrad = r, a, h
			kernTag = ""
		}
		if *nnepochAB {
			for _, g := range graphs {
				oldPathEpochs(d, g.g, g.fin, g.hidden, g.classes, g.layers)
			}
		}
		// The arxiv-sized epochs again with CrossEntropy's labels
		// uploaded every call, as before the label cache.
		if *labelsAB {
			tune.CacheLabels, kernTag = false, " [labels uploaded per call]"
			apiEpochs(d, arxiv, 128, 256, 40, 3)
			tune.CacheLabels, kernTag = true, ""
		}
		// The epochs again with the allocator collecting every 1 GiB
		// it hands out, as before gcDue's quarter rule.
		if *poolGCAB {
			tune.PoolGCFixed, kernTag = true, " [collections every 1 GiB]"
			for _, g := range graphs {
				apiEpochs(d, g.g, g.fin, g.hidden, g.classes, g.layers)
			}
			tune.PoolGCFixed, kernTag = false, ""
		}
		// And with repeated launch sequences replayed as CUDA graphs, the
		// segments cut at each call that waits and, for each positive
		// -replay-seg, every that many launches too.
		for _, f := range strings.Split(*replaySegs, ",") {
			if f == "" {
				continue // -replay-seg '': no replayed pass
			}
			var seg int
			if _, err := fmt.Sscan(f, &seg); err != nil || seg < 0 {
				log.Fatalf("-replay-seg %q: want non-negative integers", f)
			}
			cuda.GraphReplay, cuda.ReplaySegment, kernTag = true, seg, " [graph replay]"
			if seg > 0 {
				kernTag = fmt.Sprintf(" [graph replay, segments of %d]", seg)
			}
			for _, g := range graphs {
				apiEpochs(d, g.g, g.fin, g.hidden, g.classes, g.layers)
			}
		}
		cuda.GraphReplay, cuda.ReplaySegment, kernTag = false, 0, ""
		cuda.AutoReplay = autoWas
	}
	if parts["autoreplay"] {
		autoReplayPart(d, cora, arxiv)
	}
	if parts["rmat"] {
		for _, f := range strings.Split(*rmatScales, ",") {
			var scale int
			if _, err := fmt.Sscan(f, &scale); err != nil || scale < 4 || scale > 26 {
				log.Fatalf("-rmat %q: want scales between 4 and 26", f)
			}
			rmatPart(d, r, scale)
		}
	}
	if parts["sampled"] {
		feeds := map[string]bool{}
		for _, f := range strings.Split(*sampledFeeds, ",") {
			feeds[f] = true
		}
		// Arxiv-sized, 20 of an epoch's 166 batches: the host feed with 1
		// and 4 sampler goroutines, then features resident on the device
		// (host sampler) and sampling on the device, with 4.
		for _, w := range []int{1, 4} {
			if feeds[fmt.Sprintf("host%d", w)] {
				sampledSAGE(d, arxiv, 128, 40, 20, w, 0, feedHost, false, false)
			}
		}
		if feeds["resident"] {
			sampledSAGE(d, arxiv, 128, 40, 20, 4, 0, feedResident, false, false)
		}
		if feeds["device"] {
			if *sampledAB {
				// Prefetch 2, the loader's default before.
				sampledSAGE(d, arxiv, 128, 40, 20, 4, 2, feedDevice, false, true)
			}
			sampledSAGE(d, arxiv, 128, 40, 20, 4, 0, feedDevice, false, false)
		}
		// The same model with SAGEConv's product before the aggregation
		// (nn.SAGEAggregateFirst off), as before it aggregated first.
		if feeds["productfirst"] {
			sampledSAGE(d, arxiv, 128, 40, 20, 4, 0, feedDevice, true, false)
		}
		// Products-sized (2.45M nodes, 100 features, 47 classes), the
		// issue's target: sampled on the device only (the host feeds are
		// several times slower at arxiv size already).
		if prod != nil {
			// As before (Prefetch 2, the loader's default then), then as
			// now (the default window, one batch a worker) with each
			// -sampled-workers count (more sampler goroutines where the
			// host's share per call is the limit), then the sampler as
			// now with two batches in flight.
			workers := intList(*sampledWorkers)
			if *sampledAB {
				sampledSAGE(d, prod, 100, 47, 20, 4, 2, feedDevice, false, true)
			}
			for _, w := range workers {
				sampledSAGE(d, prod, 100, 47, 20, w, 0, feedDevice, false, false)
			}
			if *sampledFusedAB {
				on := nn.SAGEFused
				nn.SAGEFused = !on
				sampledSAGE(d, prod, 100, 47, 20, workers[0], 0, feedDevice, false, false)
				nn.SAGEFused = on
			}
			if *sampledSerialAB {
				// Each call's host work on its goroutine alone: the
				// loader's goroutines are the parallelism.
				on := tune.SampleParallelHost
				tune.SampleParallelHost = false
				for _, w := range workers {
					sampledSAGE(d, prod, 100, 47, 20, w, 0, feedDevice, false, false)
				}
				tune.SampleParallelHost = on
			}
			if *sampledAB {
				sampledSAGE(d, prod, 100, 47, 20, 4, 2, feedDevice, false, false)
			}
			// The step's host switches, one after another (sampledStep),
			// with the first count of sampler goroutines.
			if *sampledStepAB {
				for _, v := range sampledStepVariants {
					v.run(func() { sampledSAGE(d, prod, 100, 47, 20, workers[0], 0, feedDevice, false, false) })
				}
			}
		}
	}
}

// rmatPart times the attention layers and epochs on an R-MAT graph of the
// given scale (Graph500 parameters), each with the attention's heavy rows
// split into edge tiles (cuda.SplitHeavyRows, the default) and with one
// lane group per row, then the GCN epoch and, at scales up to 17, the
// gnnlib/nn epochs.
func rmatPart(d *cuda.Device, r *rand.Rand, scale int) {
	t0 := time.Now()
	g := rmat(scale, uint64(scale))
	fmt.Fprintf(os.Stderr, "%s: %d nodes, %d edges (self-loops included), max in-degree %d, generated in %v\n", g.name, g.n, len(g.idx), g.maxDegree(), time.Since(t0))
	if *edgesDir != "" {
		check(g.writeEdges(*edgesDir))
	}
	for _, split := range []bool{true, false} {
		cuda.SplitHeavyRows = split
		kernTag = " [whole rows]"
		if split {
			kernTag = " [split heavy rows]"
		}
		gatLayer(d, r, g, 128, 1, 256)
		gat1Layer(d, r, g, 128, 1, 256)
		tfLayer(d, r, g, 128, 4, 64)
		gatEpoch(d, r, g, 128, 256, 40, 3)
	}
	cuda.SplitHeavyRows, kernTag = true, ""
	gcnEpoch(d, r, g, 128, 256, 40, 3)
	if scale <= 17 {
		apiEpochs(d, g, 128, 256, 40, 3)
	}
}

// gatLayer times one GATv2 layer forward and backward: x_l = x·W_l and
// x_r = x·W_r (PyG's lin_l and lin_r), fused attention, and the gradients
// of W_l, W_r and att (x needs none). The backward runs the destination
// pass into one N x HC buffer, takes W_r's gradient from it, and reuses it
// for the source pass and W_l's gradient, so that only one of the two
// input-side gradients is alive at a time.
func gatLayer(d *cuda.Device, r *rand.Rand, g *csr, fin, h, c int) {
	check(d.EmptyCache())
	dg := g.upload(d)
	hc := h * c
	x := randT(d, r, g.n, fin, 1)
	wl := randT(d, r, fin, hc, float32(1/math.Sqrt(float64(fin))))
	wr := randT(d, r, fin, hc, float32(1/math.Sqrt(float64(fin))))
	att := randT(d, r, 1, hc, 0.1)
	dout := randT(d, r, g.n, hc, 1)
	dwl, dwr := must(d.Empty(fin, hc)), must(d.Empty(fin, hc))
	datt := must(d.Empty(1, hc))
	d.ResetPeak()
	step := func() {
		xl, xr := must(d.Empty(g.n, hc)), must(d.Empty(g.n, hc))
		check(cuda.MatMul(xl, x, wl, false, false))
		check(cuda.MatMul(xr, x, wr, false, false))
		a := must(cuda.GATv2ForwardLR(dg, xl, xr, att, h, c, 0.2, cuda.AttentionDropout{}))
		dxh := must(d.Empty(g.n, hc))
		// The edge-coefficient backward (tune.GATv2EdgeCoef) runs its
		// source pass first.
		inPassOrder(a.SourceFirst(), func() {
			check(a.BackwardSrc(dg, xl, xr, att, dout, dxh))
			check(cuda.MatMul(dwl, x, dxh, true, false))
		}, func() {
			check(a.BackwardDst(dg, xl, xr, att, dout, dxh, datt))
			check(cuda.MatMul(dwr, x, dxh, true, false))
		})
		a.Free()
		xl.Free()
		xr.Free()
		dxh.Free()
	}
	ms := timeit(d, step)
	peak := peakGiB(d)
	// Parts, for the notes.
	xl, xr := must(d.Empty(g.n, hc)), must(d.Empty(g.n, hc))
	gemm := timeit(d, func() { check(cuda.MatMul(xl, x, wl, false, false)) })
	check(cuda.MatMul(xr, x, wr, false, false))
	fw := func() *cuda.GATv2 {
		return must(cuda.GATv2ForwardLR(dg, xl, xr, att, h, c, 0.2, cuda.AttentionDropout{}))
	}
	fwd := timeit(d, func() { fw().Free() })
	dxh := must(d.Empty(g.n, hc))
	dst, src := backwardParts(d, fw, fwd,
		func(a *cuda.GATv2) { check(a.BackwardDst(dg, xl, xr, att, dout, dxh, datt)) },
		func(a *cuda.GATv2) { check(a.BackwardSrc(dg, xl, xr, att, dout, dxh)) })
	gemmT := timeit(d, func() { check(cuda.MatMul(dwl, x, dxh, true, false)) })
	report("gatv2-layer", g.name, fmt.Sprintf("%dx%d", h, c), ms, peak,
		fmt.Sprintf("attention fwd %.3f ms, bwd dst %.3f + src %.3f ms, x·W_l %.3f ms, xT·dX_l %.3f ms", fwd, dst, src, gemm, gemmT))
	for _, t := range []*cuda.Tensor{x, wl, wr, att, dout, dwl, dwr, datt, xl, xr, dxh} {
		t.Free()
	}
	dg.Free()
}

// layer is one GCN or GATv2 layer with its parameters, gradients and the
// activations its backward pass needs.
type layer struct {
	gat          bool
	fin, fout, h int
	w, b, att    *cuda.Tensor
	dw, db, datt *cuda.Tensor
	last         bool
	x, z, y      *cuda.Tensor // input, Â·x (GCN, aggregate-first), output
	xlr          *cuda.Tensor
	a            *cuda.GATv2
	aggFirst     bool
}

const dropout = 0.5

func newLayer(d *cuda.Device, r *rand.Rand, gat bool, fin, fout int, last bool) *layer {
	l := &layer{gat: gat, fin: fin, fout: fout, h: 1, last: last}
	s := float32(1 / math.Sqrt(float64(fin)))
	if gat {
		l.w = randT(d, r, fin, 2*fout, s)
		l.att = randT(d, r, 1, fout, 0.1)
		l.datt = must(d.Empty(1, fout))
	} else {
		l.w = randT(d, r, fin, fout, s)
		l.aggFirst = fin < fout
	}
	l.b = must(d.Zeros(1, fout))
	l.dw = must(d.Empty(l.w.Rows, l.w.Cols))
	l.db = must(d.Empty(1, fout))
	return l
}

func (l *layer) params() (p, g []*cuda.Tensor) {
	p, g = []*cuda.Tensor{l.w, l.b}, []*cuda.Tensor{l.dw, l.db}
	if l.gat {
		p, g = append(p, l.att), append(g, l.datt)
	}
	return p, g
}

func (l *layer) forward(d *cuda.Device, g *cuda.Graph, x *cuda.Tensor, seed uint64) *cuda.Tensor {
	l.x = x
	n := x.Rows
	var pre *cuda.Tensor
	switch {
	case l.gat:
		l.xlr = must(d.Empty(n, 2*l.fout))
		check(cuda.MatMul(l.xlr, x, l.w, false, false))
		l.a = must(cuda.GATv2Forward(g, l.xlr, l.att, 1, l.fout, 0.2, cuda.AttentionDropout{}))
		// Bias, activation and dropout overwrite the attention output:
		// the backward pass rebuilds the pre-activation where it needs
		// it (UnbiasAct), so a layer keeps one N x F tensor, not two.
		pre = l.a.Out
		l.y = l.a.Out
	case l.aggFirst:
		// Â·(X·W) = (Â·X)·W: aggregate at the narrower width.
		l.z = must(d.Empty(n, l.fin))
		check(cuda.SpMM(l.z, g, x, cuda.SpMMAuto))
		l.y = must(d.Empty(n, l.fout))
		check(cuda.MatMul(l.y, l.z, l.w, false, false))
		pre = l.y
	default:
		// Aggregation, bias, ReLU and dropout in one pass (SpMMBiasAct).
		t := must(d.Empty(n, l.fout))
		check(cuda.MatMul(t, x, l.w, false, false))
		l.y = must(d.Empty(n, l.fout))
		if l.last {
			check(cuda.SpMMBiasAct(l.y, g, t, l.b, false, 0, 0))
		} else {
			check(cuda.SpMMBiasAct(l.y, g, t, l.b, true, dropout, seed))
		}
		t.Free()
		return l.y
	}
	if l.last {
		check(cuda.BiasAct(l.y, pre, l.b, false, 0, 0))
	} else {
		check(cuda.BiasAct(l.y, pre, l.b, true, dropout, seed))
	}
	return l.y
}

// backward takes dL/dy and returns dL/dx (nil when needX is false). dy
// is freed here unless it is owned (the loss gradient, reused by every
// epoch).
func (l *layer) backward(d *cuda.Device, g *cuda.Graph, dy, owned *cuda.Tensor, needX bool) *cuda.Tensor {
	n := dy.Rows
	// The activation's gradient and the bias gradient in one pass.
	gr := dy
	switch {
	case l.last:
		check(cuda.ColSum(l.db, gr))
	case l.gat && dy != owned:
		// dy is this layer's alone: mask it in place.
		check(cuda.ActBackwardColSum(dy, l.db, l.y, dy, true, dropout))
	default:
		gr = must(d.Empty(n, l.fout))
		check(cuda.ActBackwardColSum(gr, l.db, l.y, dy, true, dropout))
	}
	var dx *cuda.Tensor
	switch {
	case l.gat:
		if l.last {
			check(cuda.UnbiasAct(l.y, l.b, false, 0))
		} else {
			check(cuda.UnbiasAct(l.y, l.b, true, dropout))
		}
		dxlr := must(d.Empty(n, 2*l.fout))
		check(l.a.Backward(g, l.xlr, l.att, gr, dxlr, l.datt))
		check(cuda.MatMul(l.dw, l.x, dxlr, true, false))
		// Free what the input gradient does not need before allocating it.
		l.a.Free()
		l.xlr.Free()
		if gr != dy {
			gr.Free()
		}
		gr = dy
		if dy != owned {
			dy.Free()
		}
		if needX {
			dx = must(d.Empty(n, l.fin))
			check(cuda.MatMul(dx, dxlr, l.w, false, true))
		}
		dxlr.Free()
	case l.aggFirst:
		check(cuda.MatMul(l.dw, l.z, gr, true, false))
		if needX {
			dz := must(d.Empty(n, l.fin))
			check(cuda.MatMul(dz, gr, l.w, false, true))
			dx = must(d.Empty(n, l.fin))
			check(cuda.SpMMT(dx, g, dz, cuda.SpMMAuto))
			dz.Free()
		}
		l.z.Free()
	default:
		dt := must(d.Empty(n, l.fout))
		check(cuda.SpMMT(dt, g, gr, cuda.SpMMAuto))
		check(cuda.MatMul(l.dw, l.x, dt, true, false))
		if needX {
			dx = must(d.Empty(n, l.fin))
			check(cuda.MatMul(dx, dt, l.w, false, true))
		}
		dt.Free()
	}
	if gr != dy {
		gr.Free()
	}
	if dy != owned {
		dy.Free()
	}
	return dx
}

// gcnEpoch pads the output layer to a multiple of 4 columns (47 classes:
// 48) so that its SpMMs take the float4 kernel; the labels stay below
// classes and the padded logits only add a constant to the softmax's sum.
func gcnEpoch(d *cuda.Device, r *rand.Rand, g *csr, fin, hidden, classes, nl int) {
	epoch(d, r, g, false, fin, hidden, classes, (classes+3)/4*4, nl, "gcn-epoch")
}

// gatEpoch pads the output layer to 64 channels, the nearest width the
// fused kernel supports; the labels stay below classes.
func gatEpoch(d *cuda.Device, r *rand.Rand, g *csr, fin, hidden, classes, nl int) {
	out := 8
	for out < classes {
		out *= 2
	}
	epoch(d, r, g, true, fin, hidden, classes, out, nl, "gatv2-epoch")
}

func epoch(d *cuda.Device, r *rand.Rand, g *csr, gat bool, fin, hidden, classes, out, nl int, what string) {
	check(d.EmptyCache())
	dg := g.upload(d)
	x := randT(d, r, g.n, fin, 1)
	labels := make([]int, g.n)
	for i := range labels {
		labels[i] = r.IntN(classes)
	}
	y := must(cuda.NewLabels(d, labels))
	var layers []*layer
	for i := 0; i < nl; i++ {
		a, b := hidden, hidden
		if i == 0 {
			a = fin
		}
		if i == nl-1 {
			b = out
		}
		layers = append(layers, newLayer(d, r, gat, a, b, i == nl-1))
	}
	opt := cuda.NewAdam(0.01)
	var params, grads []*cuda.Tensor
	for _, l := range layers {
		p, gr := l.params()
		params, grads = append(params, p...), append(grads, gr...)
	}
	grad := must(d.Empty(g.n, out))
	loss := must(d.Empty(1, 1))
	seed := uint64(1)
	var first, last float32
	step := func() {
		h := x
		for _, l := range layers {
			seed++
			h = l.forward(d, dg, h, seed)
		}
		check(cuda.SoftmaxNLL(grad, loss, h, y))
		dy := grad
		for i := len(layers) - 1; i >= 0; i-- {
			dy = layers[i].backward(d, dg, dy, grad, i > 0)
		}
		for _, l := range layers {
			l.y.Free()
		}
		check(opt.Step(params, grads))
	}
	step()
	first = must(loss.Host())[0]
	d.ResetPeak()
	ms := timeit(d, step)
	last = must(loss.Host())[0]
	variant := fmt.Sprintf("%d layers, hidden %d", nl, hidden)
	report(what, g.name, variant, ms, peakGiB(d), fmt.Sprintf("loss %.3f -> %.3f", first, last))
	dg.Free()
	x.Free()
	grad.Free()
	loss.Free()
	for _, p := range params {
		p.Free()
	}
	for _, gr := range grads {
		gr.Free()
	}
}

// gat1Layer times one GAT (v1) layer forward and backward: h = x·W, the
// per-node logits, the fused attention, and the gradients of W and the
// two attention vectors (x needs none).
func gat1Layer(d *cuda.Device, r *rand.Rand, g *csr, fin, h, c int) {
	check(d.EmptyCache())
	dg := g.upload(d)
	hc := h * c
	x := randT(d, r, g.n, fin, 1)
	w := randT(d, r, fin, hc, float32(1/math.Sqrt(float64(fin))))
	attS := randT(d, r, 1, hc, 0.1)
	attD := randT(d, r, 1, hc, 0.1)
	dout := randT(d, r, g.n, hc, 1)
	dw := must(d.Empty(fin, hc))
	dattS := must(d.Empty(1, hc))
	dattD := must(d.Empty(1, hc))
	d.ResetPeak()
	step := func() {
		hh := must(d.Empty(g.n, hc))
		check(cuda.MatMul(hh, x, w, false, false))
		as := must(d.Empty(g.n, h))
		ad := must(d.Empty(g.n, h))
		check(cuda.HeadDot(as, hh, attS, h))
		check(cuda.HeadDot(ad, hh, attD, h))
		a := must(cuda.GATForward(dg, hh, as, ad, h, 0.2, cuda.AttentionDropout{}))
		dh := must(d.Empty(g.n, hc))
		das := must(d.Empty(g.n, h))
		dad := must(d.Empty(g.n, h))
		check(a.Backward(dg, hh, as, ad, dout, dh, das, dad))
		a.Free()
		// The logits' gradients flow into dh and the attention vectors.
		dh2 := must(d.Empty(g.n, hc))
		check(cuda.HeadDotBackward(dh2, dattS, das, hh, attS, h))
		check(cuda.Axpby(dh, 1, dh2, 1))
		check(cuda.HeadDotBackward(dh2, dattD, dad, hh, attD, h))
		check(cuda.Axpby(dh, 1, dh2, 1))
		check(cuda.MatMul(dw, x, dh, true, false))
		for _, t := range []*cuda.Tensor{hh, as, ad, dh, das, dad, dh2} {
			t.Free()
		}
	}
	ms := timeit(d, step)
	report("gat-layer", g.name, fmt.Sprintf("%dx%d", h, c), ms, peakGiB(d), "GAT v1, fused attention")
	for _, t := range []*cuda.Tensor{x, w, attS, attD, dout, dw, dattS, dattD} {
		t.Free()
	}
	dg.Free()
}

// gemmShape is one dense product that the gemm and bf16 parts time.
type gemmShape struct {
	name    string
	m, k, n int
	ta, tb  bool
}

// gemmShapes are the dense products of the arxiv- and products-sized
// layers: the forward x·W, the weight gradient Xᵀ·dY and the input
// gradient dY·Wᵀ.
var gemmShapes = []gemmShape{
	{"x·W arxiv 169343x128·128x512", 169343, 128, 512, false, false},
	{"Xᵀ·dY arxiv 128x169343·169343x512", 128, 169343, 512, true, false},
	{"dY·Wᵀ arxiv 169343x256·(128x256)ᵀ", 169343, 256, 128, false, true},
	{"x·W products 2449029x100·100x256", 2449029, 100, 256, false, false},
	{"x·W products 2449029x256·256x256", 2449029, 256, 256, false, false},
	{"x·W products 2449029x256·256x48", 2449029, 256, 48, false, false},
	{"Xᵀ·dY products 256x2449029·2449029x48", 256, 2449029, 48, true, false},
	{"dY·Wᵀ products 2449029x48·(256x48)ᵀ", 2449029, 48, 256, false, true},
	{"x·W products 2449029x256·256x47 (odd)", 2449029, 256, 47, false, false},
}

// gemmRates reports the FP32 GEMM's rate on the dense products of the
// arxiv- and products-sized layers, for each kernel family on the same
// operands.
func gemmRates(d *cuda.Device, r *rand.Rand, kerns []tune.GEMMKernel) {
	check(d.EmptyCache())
	for _, c := range gemmShapes {
		if !*products && c.m+c.k > 1e6 {
			continue
		}
		ar, ac := c.m, c.k
		if c.ta {
			ar, ac = ac, ar
		}
		br, bc := c.k, c.n
		if c.tb {
			br, bc = bc, br
		}
		a := randT(d, r, ar, ac, 1)
		b := randT(d, r, br, bc, 1)
		y := must(d.Empty(c.m, c.n))
		for _, k := range kerns {
			tune.GEMM = k
			ms := timeit(d, func() { check(cuda.MatMul(y, a, b, c.ta, c.tb)) })
			report("gemm-fp32", "-", c.name+" ["+string(k)+"]", ms, 0, fmt.Sprintf("%.1f TFLOP/s", 2*float64(c.m)*float64(c.k)*float64(c.n)/ms/1e9))
		}
		tune.GEMM = kerns[0]
		a.Free()
		b.Free()
		y.Free()
	}
}

// int8Kernels times the INT8 GEMM (a layer of 128 -> 256 on the arxiv-sized
// node count) and the INT8 SpMM (width 64 and 256) with INT32 sums.
func int8Kernels(d *cuda.Device, r *rand.Rand, g *csr) {
	check(d.EmptyCache())
	rnd := func(n int) []int8 {
		x := make([]int8, n)
		for i := range x {
			x[i] = int8(r.IntN(255) - 127)
		}
		return x
	}
	const k, n = 128, 256
	a := must(d.Int8FromHost(rnd(g.n*k), g.n, k))
	b := must(d.Int8FromHost(rnd(n*k), n, k))
	c := must(d.EmptyInt32(g.n, n))
	ms := timeit(d, func() { check(cuda.MatMulInt8(c, a, b)) })
	report("gemm-int8", g.name, fmt.Sprintf("%dx%d·(%dx%d)ᵀ", g.n, k, n, k), ms, 0, fmt.Sprintf("%.1f TOP/s", 2*float64(g.n)*k*n/ms/1e9))
	a.Free()
	b.Free()
	c.Free()
	dg := g.upload(d)
	for _, f := range []int{64, 256} {
		x := must(d.Int8FromHost(rnd(g.n*f), g.n, f))
		y := must(d.EmptyInt32(g.n, f))
		ms := timeit(d, func() { check(cuda.SpMMInt8(y, dg, x)) })
		e := int64(len(g.idx))
		bytes := float64(e*4 + e*int64(f) + int64(g.n)*int64(f)*4 + int64(g.n+1)*4)
		report("spmm-int8", g.name, fmt.Sprintf("F=%d", f), ms, 0, fmt.Sprintf("%.0f GB/s", bytes/ms/1e6))
		x.Free()
		y.Free()
	}
	dg.Free()
}

// reorder measures what gnnlib/graph's RCM ordering does for SpMM on the
// device: a graph with locality (169,343 nodes on a ring, each with 14
// in-edges from nodes at most 2,000 positions away, plus a self-loop)
// whose node ids are shuffled, against the same graph renumbered by RCM.
// The feature matrix (43-173 MB) is larger than the L2 cache, so the
// order decides how many gathered rows come from L2.
func reorder(d *cuda.Device, r *rand.Rand) {
	const n, deg, reach = 169343, 14, 2000
	src := make([]int, 0, n*(deg+1))
	dst := make([]int, 0, n*(deg+1))
	for v := 0; v < n; v++ {
		src, dst = append(src, v), append(dst, v)
		for j := 0; j < deg; j++ {
			u := (v + r.IntN(2*reach+1) - reach + n) % n
			src, dst = append(src, u), append(dst, v)
		}
	}
	ring := must(graph.FromEdges(n, src, dst))
	shuffle := r.Perm(n)
	shuffled := must(ring.Permute(shuffle))
	t0 := time.Now()
	perm := shuffled.RCM()
	rcm := must(shuffled.Permute(perm))
	took := time.Since(t0)
	for _, c := range []struct {
		name string
		g    *graph.Graph
	}{{"shuffled", shuffled}, {"RCM", rcm}} {
		dg := must(cuda.NewGraph(d, c.g))
		for _, f := range []int{64, 256} {
			x := randT(d, r, n, f, 1)
			y := must(d.Empty(n, f))
			ms := timeit(d, func() { check(cuda.SpMM(y, dg, x, cuda.SpMMAuto)) })
			e := int64(c.g.NumEdges())
			bytes := float64(e*4 + e*int64(f)*4 + int64(n)*int64(f)*4 + int64(n+1)*4)
			note := fmt.Sprintf("%.0f GB/s, bandwidth %d, mean edge span %.0f", bytes/ms/1e6, c.g.Bandwidth(), c.g.EdgeSpan())
			if c.name == "RCM" {
				note += fmt.Sprintf(", RCM took %v on the host", took.Round(time.Millisecond))
			}
			report("spmm-reorder", "ring-169k", fmt.Sprintf("%s F=%d", c.name, f), ms, 0, note)
			x.Free()
			y.Free()
		}
		dg.Free()
	}
}

// inPassOrder runs a GATv2 backward's source pass (src) and destination
// pass (dst) in the order its forward asks for: the edge-coefficient
// backward (tune.GATv2EdgeCoef) runs its source pass first.
func inPassOrder(sourceFirst bool, src, dst func()) {
	if sourceFirst {
		src()
		dst()
		return
	}
	dst()
	src()
}

// backwardParts times a GATv2 attention's two backward passes, dst and
// src, after the forward pass fw, which takes fwdMS. The second pass
// consumes what the first saved, and the edge-coefficient source pass
// (SourceFirst) spends the forward pass's scores. So, with it, each
// timed run makes its own forward pass: the source pass is the run of
// the forward and source passes less the forward's time, the
// destination pass what the run of all three takes more. Otherwise one
// forward pass serves the destination pass alone and both passes, and
// the source pass is their difference.
func backwardParts(d *cuda.Device, fw func() *cuda.GATv2, fwdMS float64, dst, src func(*cuda.GATv2)) (dstMS, srcMS float64) {
	a := fw()
	if !a.SourceFirst() {
		defer a.Free()
		dstMS = timeit(d, func() { dst(a) })
		return dstMS, timeit(d, func() { dst(a); src(a) }) - dstMS
	}
	a.Free()
	one := timeit(d, func() { b := fw(); src(b); b.Free() })
	both := timeit(d, func() { b := fw(); src(b); dst(b); b.Free() })
	return both - one, one - fwdMS
}
