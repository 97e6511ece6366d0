package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/devicetest"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

var _ data.BlockSampler = (*backend)(nil)

func readBuf(t *testing.T, d *Device, b *buffer, n int) []int32 {
	t.Helper()
	out := make([]int32, n)
	if err := d.readInts([]uintptr{b.ptr}, [][]int32{out}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDeviceScan compares scanInts with a host prefix sum, over one
// block, block edges and three levels of block sums.
func TestDeviceScan(t *testing.T) {
	d := openOrSkip(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 1023, 1024, 1025, 70000, 1100000} {
		in := make([]int32, n)
		for i := range in {
			in[i] = int32(r.IntN(5))
		}
		b, err := d.uploadInts(in)
		if err != nil {
			t.Fatal(err)
		}
		out, err := d.scanInts(b, n)
		if err != nil {
			t.Fatal(err)
		}
		got := readBuf(t, d, out, n+1)
		var s int32
		for i := 0; i <= n; i++ {
			if got[i] != s {
				t.Fatalf("n=%d: scan[%d] = %d, want %d", n, i, got[i], s)
			}
			if i < n {
				s += in[i]
			}
		}
		b.release()
		out.release()
	}
}

func sampleGraphForTest(t *testing.T) *graph.Graph {
	g, err := graph.BarabasiAlbert(5000, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := g.Edges()
	var s2, d2 []int
	for i := range src {
		if dst[i] != 0 { // node 0 keeps no in-edges: it draws nothing
			s2, d2 = append(s2, src[i]), append(d2, dst[i])
		}
	}
	// Node 1 is a hub both ways, so that its rows are heavy (over
	// heavyTile edges) by destination and in the blocks' transposes.
	for u := 2; u < 5000; u++ {
		s2, d2 = append(s2, u, 1), append(d2, 1, u)
	}
	if g, err = graph.FromEdges(5000, s2, d2); err != nil {
		t.Fatal(err)
	}
	return g
}

// checkDeviceBlock checks the device graph cached for a block against a
// transpose built on the host: the transposed rows hold the same
// destinations (in any order: the counting sort scatters with atomics),
// and the mean weights are 1/deg in both orders.
func checkDeviceBlock(t *testing.T, d *Device, bg *graph.Graph) {
	t.Helper()
	dg, err := d.deviceGraphMode(bg, meanWeights)
	if err != nil {
		t.Fatal(err)
	}
	if dg.n != bg.NumNodes() || dg.nsrc != bg.NumSrc() || dg.edges != bg.NumEdges() {
		t.Fatalf("device block %d×%d, %d edges; host %v", dg.n, dg.nsrc, dg.edges, bg)
	}
	e := bg.NumEdges()
	ptr, idx := readBuf(t, d, dg.indptr, bg.NumNodes()+1), readBuf(t, d, dg.idx, e)
	if !slices.Equal(ptr, toInt32(bg.Indptr)) || !slices.Equal(idx, toInt32(bg.Indices)) {
		t.Fatal("device CSR differs from the host block")
	}
	tr := bg.Transpose()
	if dg.in != degreeStatsOf(bg.Indptr) || dg.out != degreeStatsOf(tr.Indptr) || dg.hv.n != dg.in.heavy || dg.thv.n != dg.out.heavy {
		t.Fatalf("device block's degree statistics %+v, %+v (heavy rows %d, %d); host %+v, %+v",
			dg.in, dg.out, dg.hv.n, dg.thv.n, degreeStatsOf(bg.Indptr), degreeStatsOf(tr.Indptr))
	}
	tptr, tidx := readBuf(t, d, dg.tptr, bg.NumSrc()+1), readBuf(t, d, dg.tidx, e)
	if !slices.Equal(tptr, toInt32(tr.Indptr)) {
		t.Fatal("device transpose's indptr differs from the host transpose's")
	}
	w, tw := readBuf(t, d, dg.w, e), readBuf(t, d, dg.tw, e)
	for u := 0; u < bg.NumSrc(); u++ {
		row := slices.Clone(tidx[tptr[u]:tptr[u+1]])
		slices.Sort(row)
		if !slices.Equal(row, toInt32(tr.Neighbors(u))) {
			t.Fatalf("transposed row %d = %v, host %v", u, row, tr.Neighbors(u))
		}
		for p := tptr[u]; p < tptr[u+1]; p++ {
			v := tidx[p]
			if want := 1 / float32(bg.Indptr[v+1]-bg.Indptr[v]); math.Float32frombits(uint32(tw[p])) != want {
				t.Fatalf("transposed weight of %d -> %d = %v, want %v", u, v, math.Float32frombits(uint32(tw[p])), want)
			}
		}
	}
	for v := 0; v < bg.NumNodes(); v++ {
		for p := bg.Indptr[v]; p < bg.Indptr[v+1]; p++ {
			if want := 1 / float32(bg.Indptr[v+1]-bg.Indptr[v]); math.Float32frombits(uint32(w[p])) != want {
				t.Fatalf("weight of row %d = %v, want %v", v, math.Float32frombits(uint32(w[p])), want)
			}
		}
	}
}

// TestDeviceSampleBlocks: the device sampler gives exactly data.SampleBlocks'
// blocks (its host model, whose invariants gnnlib/data's tests check),
// its transposes equal a host transpose, the features it gathers are the
// host's rows, and UploadBlocks builds the same device graphs from host
// blocks.
func TestDeviceSampleBlocks(t *testing.T) {
	d := openOrSkip(t)
	defer func(p bool) { samplePinned = p }(samplePinned)
	for _, pinned := range []bool{true, false} {
		samplePinned = pinned
		t.Run(fmt.Sprintf("pinned=%t", pinned), func(t *testing.T) { sampleBlocks(t, d) })
	}
}

func sampleBlocks(t *testing.T, d *Device) {
	g := sampleGraphForTest(t)
	x := tensor.Randn(2, g.NumNodes(), 12)
	xd := x.To(d.Backend())
	seeds := []int{0, 5, 17, 4999, 1000, 42, 7, 300, 1}
	for _, fanouts := range [][]int{{15, 10, 5}, {-1, 3}, {0, 2}, {4}} {
		for _, seed := range []uint64{1, 9} {
			blocks, feats, err := d.SampleBlocks(g, xd, seeds, fanouts, seed)
			if err != nil {
				t.Fatal(err)
			}
			want, err := data.SampleBlocks(g, seeds, fanouts, seed)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				b, w := blocks[i], want[i]
				if !slices.Equal(b.SrcNodes, w.SrcNodes) || !slices.Equal(b.DstNodes, w.DstNodes) ||
					!slices.Equal(b.Graph.Indptr, w.Graph.Indptr) || !slices.Equal(b.Graph.Indices, w.Graph.Indices) || b.Graph.NumSrc() != w.Graph.NumSrc() {
					t.Fatalf("fan-outs %v seed %d: device block %d differs from data.SampleBlocks'", fanouts, seed, i)
				}
				checkDeviceBlock(t, d, b.Graph)
			}
			got, err := feats.Host()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, x.IndexSelect(want[0].SrcNodes).Data()) {
				t.Fatalf("fan-outs %v: gathered features differ from the host rows", fanouts)
			}
			// The same host blocks through UploadBlocks.
			feats2, err := d.UploadBlocks(want, xd)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range want {
				checkDeviceBlock(t, d, w.Graph)
			}
			got2, _ := feats2.Host()
			if !slices.Equal(got2, got) {
				t.Fatal("UploadBlocks' features differ from SampleBlocks'")
			}
		}
	}
	if _, _, err := d.SampleBlocks(g, nil, []int{3, 3}, []int{2}, 1); err == nil {
		t.Error("repeated seed: no error")
	}
	// The flag array is clean after an error and after a call: the next
	// call gives data.SampleBlocks' blocks again.
	blocks, _, err := d.SampleBlocks(g, nil, seeds, []int{3, 3}, 5)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := data.SampleBlocks(g, seeds, []int{3, 3}, 5)
	if !slices.Equal(blocks[0].SrcNodes, want[0].SrcNodes) {
		t.Fatal("a later call differs from data.SampleBlocks'")
	}
}

// TestDeviceSampledSAGEStep: a 2-layer GraphSAGE step (mean, ReLU,
// cross-entropy) on device-sampled blocks gives the loss and gradients of
// the same step on the host over the host copies of the same blocks; with
// a first fan-out of −1 (every in-neighbour) the hubs' rows are split
// into edge tiles in both directions.
func TestDeviceSampledSAGEStep(t *testing.T) {
	d := openOrSkip(t)
	for _, fanouts := range [][]int{{10, 5}, {-1, 5}} {
		t.Run(fmt.Sprint(fanouts), func(t *testing.T) { sampledSAGEStep(t, d, fanouts) })
	}
}

// TestDeviceSampledSAGEStepSwitches is TestDeviceSampledSAGEStep with
// the sampled step's switches that no device has run yet on:
// tune.PostFillCopy (fills and copies posted) and nn.SAGEFreeSums
// (SAGEConv's summed terms freed as soon as they are added), whose memory
// the next kernels reuse at once, so that a term still read would show
// in the loss or the gradients.
func TestDeviceSampledSAGEStepSwitches(t *testing.T) {
	d := openOrSkip(t)
	defer func(p, f bool) { tune.PostFillCopy, nn.SAGEFreeSums = p, f }(tune.PostFillCopy, nn.SAGEFreeSums)
	tune.PostFillCopy, nn.SAGEFreeSums = true, true
	for _, fanouts := range [][]int{{10, 5}, {-1, 5}} {
		t.Run(fmt.Sprint(fanouts), func(t *testing.T) { sampledSAGEStep(t, d, fanouts) })
	}
}

func sampledSAGEStep(t *testing.T, d *Device, fanouts []int) {
	dev := d.Backend()
	g := sampleGraphForTest(t)
	x := tensor.Randn(4, g.NumNodes(), 16)
	seeds := make([]int, 256)
	for i := range seeds {
		seeds[i] = 11*i + 1 // node 1, the hub, first
	}
	y := make([]int, len(seeds))
	for i := range y {
		y[i] = i % 5
	}
	blocks, feats, err := d.SampleBlocks(g, x.To(dev), seeds, fanouts, 3)
	if err != nil {
		t.Fatal(err)
	}
	mk := func() []*nn.SAGEConv {
		return []*nn.SAGEConv{nn.NewSAGEConv(16, 32, "mean"), nn.NewSAGEConv(32, 5, "mean")}
	}
	host, devc := mk(), mk()
	for i := range host {
		for j, p := range devc[i].Params() {
			copy(p.Data(), host[i].Params()[j].Data())
		}
		nn.To(devc[i], dev)
	}
	run := func(cs []*nn.SAGEConv, h *tensor.Tensor) (float32, [][]float32) {
		gs := []*graph.Graph{blocks[0].Graph, blocks[1].Graph}
		for i, c := range cs {
			h = c.Forward(gs[i], h)
			if i == 0 {
				h = h.ReLU()
			}
		}
		loss := nn.CrossEntropy(h, y, nil)
		loss.Backward()
		var grads [][]float32
		for _, c := range cs {
			for _, p := range c.Params() {
				grads = append(grads, p.Grad().To(nil).Data())
			}
		}
		return loss.Item(), grads
	}
	lh, gh := run(host, x.IndexSelect(blocks[0].SrcNodes))
	ld, gd := run(devc, tbackend.FromStorage(feats, feats.Rows, feats.Cols))
	if math.Abs(float64(lh-ld)) > 1e-5 {
		t.Fatalf("loss on the device %v, host %v", ld, lh)
	}
	for i := range gh {
		for k := range gh[i] {
			if diff := math.Abs(float64(gh[i][k] - gd[i][k])); diff > 1e-4*(1+math.Abs(float64(gh[i][k]))) {
				t.Fatalf("gradient %d[%d]: device %v, host %v", i, k, gd[i][k], gh[i][k])
			}
		}
	}
}

// TestDeviceSampledLayers: GraphSAGE (mean and max), GCN, GAT and GATv2
// train on device-sampled blocks as on the CPU over the same blocks
// (devicetest.CheckSampledLayers, with the suite's tolerances).
func TestDeviceSampledLayers(t *testing.T) {
	d := openOrSkip(t)
	devicetest.CheckSampledLayers(t, d.Backend(), devicetest.Tolerance{Op: 2e-4, Loss: 1e-4, Value: 1e-3})
}

// TestDeviceSAGEAggregateFirst is gnnlib/nn's TestSAGEAggregateFirst on
// the GPU: SAGEConv's mean term aggregated first (nn.SAGEAggregateFirst)
// and projected first give the same outputs and gradients, on a
// device-sampled block and on a square graph, widening and narrowing.
func TestDeviceSAGEAggregateFirst(t *testing.T) {
	d := openOrSkip(t)
	dev := d.Backend()
	defer func(on bool) { nn.SAGEAggregateFirst = on }(nn.SAGEAggregateFirst)
	g := sampleGraphForTest(t)
	seeds := make([]int, 128)
	for i := range seeds {
		seeds[i] = 13*i + 1
	}
	blocks, _, err := d.SampleBlocks(g, nil, seeds, []int{10, 5}, 4)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		g       *graph.Graph
		in, out int
	}{
		{"block 16->32", blocks[0].Graph, 16, 32},
		{"block 32->5", blocks[1].Graph, 32, 5},
		{"square 12->20", g, 12, 20},
		{"square 20->12", g, 20, 12},
	}
	for _, c := range cases {
		conv := nn.NewSAGEConv(c.in, c.out, "mean")
		nn.To(conv, dev)
		x0 := tensor.Randn(3, c.g.NumSrc(), c.in).To(dev)
		r := tensor.Randn(4, c.g.NumNodes(), c.out).To(dev)
		run := func(on bool) []*tensor.Tensor {
			nn.SAGEAggregateFirst = on
			for _, p := range conv.Params() {
				p.ZeroGrad()
			}
			x := x0.Detach().SetRequiresGrad(true)
			y := conv.Forward(c.g, x)
			y.Mul(r).Sum().Backward()
			out := []*tensor.Tensor{y.Detach(), x.Grad()}
			for _, p := range conv.Params() {
				out = append(out, p.Grad())
			}
			return out
		}
		a, b := run(true), run(false)
		for i, n := range []string{"output", "x's gradient", "WNeigh's gradient", "B's gradient", "WRoot's gradient"} {
			if e := devicetest.RelErr(a[i], b[i]); e > 1e-4 {
				t.Errorf("%s: %s differs between the orders by %.3g", c.name, n, e)
			}
		}
	}
}

// TestDeviceSampleSplit times Device.SampleBlocks on a products-sized
// batch (productsGraph: 2.45M nodes, 50 in-neighbours each; 1024 seeds,
// fan-outs 15, 10, 5; 100 features gathered) and logs where the time
// goes (tune.SampleSplit), on one goroutine and on four at once (the
// loader's Workers), after checking one batch against data.SampleBlocks:
// as before (tune.SetSampler(false): the lock held through the download
// and its widening, fresh memory every batch, each launch and the
// download waited for on the device goroutine, the host blocks built on
// one goroutine) and
// as now (each batch's arena given back after it, as the loader's
// ReuseBlocks does), each checked again. It asserts nothing about time.
func TestDeviceSampleSplit(t *testing.T) {
	d := openOrSkip(t)
	g, seeds := productsGraph(t)
	xd := tensor.Zeros(g.NumNodes(), 100).To(d.Backend())
	fanouts := []int{15, 10, 5}
	want, err := data.SampleBlocks(g, seeds, fanouts, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer tune.SetSampler(true)()
	defer func() { tune.SampleTiming = nil }()
	ms := func(x time.Duration, n int) float64 { return float64(x.Microseconds()) / 1e3 / float64(n) }
	for _, now := range []bool{false, true} {
		tune.SetSampler(now)
		way := "as before (lock through the widening, fresh memory, waited launches and download, one goroutine)"
		if now {
			way = "as now (unlocked host work on a goroutine a hop, memory reused, posted launches, polled download)"
		}
		for rep := range 2 { // the second after an arena went back
			blocks, _, arena, err := d.sampleBlocks(g, xd, seeds, fanouts, 1, true)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if !slices.Equal(blocks[i].SrcNodes, want[i].SrcNodes) || !slices.Equal(blocks[i].Graph.Indptr, want[i].Graph.Indptr) || !slices.Equal(blocks[i].Graph.Indices, want[i].Graph.Indices) {
					t.Fatalf("%s, call %d: block %d differs from data.SampleBlocks'", way, rep, i)
				}
			}
			if (arena != nil) != now {
				t.Fatalf("%s: arena %t", way, arena != nil)
			}
			if arena != nil {
				putArena(arena)
			}
		}
		for _, workers := range []int{1, 4} {
			const per = 6
			if err := d.Synchronize(); err != nil {
				t.Fatal(err)
			}
			m0, err := d.MemStats()
			if err != nil {
				t.Fatal(err)
			}
			sp := &sampleSplit{}
			tune.SampleTiming = sp
			t0 := time.Now()
			var wg sync.WaitGroup
			errs := make([]error, workers)
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range per {
						_, _, arena, err := d.sampleBlocks(g, xd, seeds, fanouts, uint64(100*w+i+2), true)
						if err != nil {
							errs[w] = err
							return
						}
						if arena != nil {
							putArena(arena)
						}
					}
				}()
			}
			wg.Wait()
			if err := d.Synchronize(); err != nil {
				t.Fatal(err)
			}
			wall := time.Since(t0)
			tune.SampleTiming = nil
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			m1, err := d.MemStats()
			if err != nil {
				t.Fatal(err)
			}
			n := sp.Calls
			// Reserved grows when the pool had no cached block to give (a
			// driver allocation in the batch's path).
			t.Logf("%s, %d goroutines, %d batches: %.3f ms a batch (wall); per call: lock %.3f, queue %.3f, download+wait %.3f, widen %.3f, host %.3f, register+gather %.3f ms; pool reserved %+.1f MiB, in use %+.1f MiB over the batches",
				way, workers, n, ms(wall, n), ms(sp.Lock, n), ms(sp.Queue, n), ms(sp.Download, n), ms(sp.Widen, n), ms(sp.Host, n), ms(sp.Register, n),
				float64(m1.Reserved-m0.Reserved)/(1<<20), float64(m1.InUse-m0.InUse)/(1<<20))
		}
	}
}
