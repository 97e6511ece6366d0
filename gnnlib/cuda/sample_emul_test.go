package cuda

import (
	"errors"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// The CPU emulation of sample.cu: each function is one kernel of
// kernels/sample.cu written out in Go, thread loop for thread loop, and
// emulateSampleBlocks runs them in the order sampleHops and registerBlock
// launch them. TestSampleKernelsEmulated checks that this sequence gives
// data.SampleBlocks' blocks and a transpose with the right rows and mean
// weights, on the CPU; TestDeviceSampleBlocks checks the kernels
// themselves against data.SampleBlocks on a GPU.

func emScan(in []int32, n int) []int32 {
	out := make([]int32, n+1)
	for i := 0; i < n; i++ {
		out[i+1] = out[i] + in[i]
	}
	return out
}

// garbage returns n int32 slots as a fresh device buffer holds them:
// anything, here values that fail loudly when used as an index.
func garbage(n int) []int32 {
	b := make([]int32, n)
	for i := range b {
		b[i] = -1 << 30
	}
	return b
}

func emSampleCounts(indptr, nodes, counts []int32, ndstp *int32, bound, fanout int) {
	ndst := int(*ndstp)
	for i := 0; i < bound; i++ {
		if i >= ndst {
			counts[i] = 0
			continue
		}
		v := nodes[i]
		d := indptr[v+1] - indptr[v]
		switch {
		case d == 0:
			counts[i] = 0
		case fanout < 0:
			counts[i] = d
		default:
			counts[i] = int32(fanout)
		}
	}
}

func emSampleEdges(indptr, indices, nodes, rowptr, src, flag []int32, ndstp *int32, bound, fanout int, seed uint64) {
	for i := 0; i < bound; i++ {
		if i >= int(*ndstp) {
			break
		}
		v := nodes[i]
		beg := indptr[v]
		d := uint64(indptr[v+1] - beg)
		o, k := rowptr[i], rowptr[i+1]-rowptr[i]
		for j := int32(0); j < k; j++ {
			r := j
			if fanout >= 0 {
				h := data.HopSeed(seed, i*fanout+int(j))
				r = int32(((h >> 32) * d) >> 32)
			}
			u := indices[beg+r]
			src[o+j] = u
			flag[u] = 1
		}
	}
}

func emMarkDst(nodes, flag, loc []int32, ndstp *int32, bound int) {
	for i := 0; i < bound; i++ {
		if i >= int(*ndstp) {
			break
		}
		flag[nodes[i]] = 0
		loc[nodes[i]] = int32(i)
	}
}

func emCompact(flag, pos, loc, srcnodes []int32, n int, ndstp *int32) {
	for v := 0; v < n; v++ {
		if flag[v] != 0 {
			k := *ndstp + pos[v]
			loc[v] = k
			srcnodes[k] = int32(v)
			flag[v] = 0
		}
	}
}

func emSizes(ne, nnew *int32, cnt []int32, k, hops int) {
	cnt[k+1] = cnt[k] + *nnew
	cnt[hops+1+k] = *ne
}

func emRelabel(idx, loc []int32, nep *int32, bound int) {
	for e := 0; e < bound; e++ {
		if e >= int(*nep) {
			break
		}
		idx[e] = loc[idx[e]]
	}
}

func emSortRows(rowptr, idx []int32, n int) {
	for v := 0; v < n; v++ {
		b, e := rowptr[v], rowptr[v+1]
		for k := b + 1; k < e; k++ {
			x, j := idx[k], k-1
			for j >= b && idx[j] > x {
				idx[j+1] = idx[j]
				j--
			}
			idx[j+1] = x
		}
	}
}

// emTranspose is block_hist, scanInts, the cursor's refill and
// block_transpose; the rows are scattered in reverse order of the
// destinations, one of the orders the atomics may give.
func emTranspose(rowptr, idx []int32, ndst, nsrc int) (tptr, tidx []int32, w, tw []float32) {
	cnt := make([]int32, nsrc)
	for _, u := range idx {
		cnt[u]++
	}
	tptr = emScan(cnt, nsrc)
	clear(cnt)
	tidx = make([]int32, len(idx))
	w, tw = make([]float32, len(idx)), make([]float32, len(idx))
	for v := ndst - 1; v >= 0; v-- {
		b, e := rowptr[v], rowptr[v+1]
		var m float32
		if e > b {
			m = 1 / float32(e-b)
		}
		for k := b; k < e; k++ {
			u := idx[k]
			p := tptr[u] + cnt[u]
			cnt[u]++
			tidx[p] = int32(v)
			w[k], tw[p] = m, m
		}
	}
	return
}

type emBlock struct {
	ndst, nsrc  int
	rowptr, idx []int32
	nodes       []int32
	tptr, tidx  []int32
	w, tw       []float32
}

// emulateSampleBlocks runs the emulated kernels as sampleHops does, hop by
// hop, with the node-sized flag (zero between calls) and loc arrays: each
// hop's buffers are as long as sampleBounds says (and hold garbage where
// nothing wrote), the counts live in cnt, and only the end reads them to
// cut the blocks out of the buffers (downloadHops), whose transposes are
// then built (registerBlock).
func emulateSampleBlocks(g *graph.Graph, flag []int32, seeds, fanouts []int, seed uint64) []emBlock {
	n := g.NumNodes()
	indptr, indices := toInt32(g.Indptr), toInt32(g.Indices)
	maxDeg := 0
	for v := 0; v < n; v++ {
		maxDeg = max(maxDeg, g.Indptr[v+1]-g.Indptr[v])
	}
	bdst, bne, bsrc := sampleBounds(len(seeds), n, g.NumEdges(), maxDeg, fanouts)
	nh := len(fanouts)
	cnt := garbage(2*nh + 1)
	cnt[0] = int32(len(seeds))
	loc := garbage(n)
	dst := toInt32(seeds)
	type bufs struct{ rowptr, idx, nodes []int32 }
	var hops []bufs
	for k, fan := range fanouts {
		bd, be, bs := int(bdst[k]), int(bne[k]), int(bsrc[k])
		counts := garbage(bd + 1)
		emSampleCounts(indptr, dst, counts, &cnt[k], bd, fan)
		rowptr := emScan(counts, bd)
		idx := garbage(be + 1)
		emSampleEdges(indptr, indices, dst, rowptr, idx, flag, &cnt[k], bd, fan, data.HopSeed(seed, k))
		emMarkDst(dst, flag, loc, &cnt[k], bd)
		pos := emScan(flag, n)
		emSizes(&rowptr[bd], &pos[n], cnt, k, nh)
		nodes := garbage(bs + 1)
		copy(nodes, dst[:bd])
		emCompact(flag, pos, loc, nodes, n, &cnt[k])
		emRelabel(idx, loc, &rowptr[bd], be)
		emSortRows(rowptr, idx, bd)
		hops = append(hops, bufs{rowptr, idx, nodes})
		dst = nodes
	}
	var out []emBlock
	for k, h := range hops {
		ndst, nsrc, ne := int(cnt[k]), int(cnt[k+1]), int(cnt[nh+1+k])
		b := emBlock{ndst: ndst, nsrc: nsrc, rowptr: h.rowptr[:ndst+1], idx: h.idx[:ne], nodes: h.nodes[:nsrc]}
		b.tptr, b.tidx, b.w, b.tw = emTranspose(b.rowptr, b.idx, ndst, nsrc)
		out = append(out, b)
	}
	return out
}

func TestSampleKernelsEmulated(t *testing.T) {
	g := sampleGraphForTest(t)
	flag := make([]int32, g.NumNodes())
	seeds := []int{0, 5, 17, 4999, 1000, 42, 7, 300, 1}
	for _, fanouts := range [][]int{{15, 10, 5}, {-1, 3}, {0, 2}, {4}} {
		for _, seed := range []uint64{1, 9} {
			got := emulateSampleBlocks(g, flag, seeds, fanouts, seed)
			if slices.ContainsFunc(flag, func(f int32) bool { return f != 0 }) {
				t.Fatal("the flag array is not all zero after a call")
			}
			want, err := data.SampleBlocks(g, seeds, fanouts, seed)
			if err != nil {
				t.Fatal(err)
			}
			for i, b := range got {
				w := want[len(got)-1-i]
				bg := w.Graph
				if !slices.Equal(b.rowptr, toInt32(bg.Indptr)) || !slices.Equal(b.idx, toInt32(bg.Indices)) ||
					!slices.Equal(b.nodes, toInt32(w.SrcNodes)) || b.nsrc != bg.NumSrc() {
					t.Fatalf("fan-outs %v seed %d hop %d: the emulated kernels' block differs from data.SampleBlocks'", fanouts, seed, i)
				}
				tr := bg.Transpose()
				if !slices.Equal(b.tptr, toInt32(tr.Indptr)) {
					t.Fatalf("hop %d: transpose indptr differs from the host transpose's", i)
				}
				for u := 0; u < b.nsrc; u++ {
					row := slices.Clone(b.tidx[b.tptr[u]:b.tptr[u+1]])
					slices.Sort(row)
					if !slices.Equal(row, toInt32(tr.Neighbors(u))) {
						t.Fatalf("hop %d: transposed row %d = %v, host %v", i, u, row, tr.Neighbors(u))
					}
					for p := b.tptr[u]; p < b.tptr[u+1]; p++ {
						v := b.tidx[p]
						if b.tw[p] != 1/float32(b.rowptr[v+1]-b.rowptr[v]) {
							t.Fatalf("hop %d: transposed weight %v of %d -> %d", i, b.tw[p], u, v)
						}
					}
				}
			}
		}
	}
}

// waitDriver is a recordDriver that notes, for each call that waits for
// the device (a copy to the host, a synchronous upload, a sync), how many
// launches came before it.
type waitDriver struct {
	*recordDriver
	waits []int
}

func (w *waitDriver) wait() { w.waits = append(w.waits, len(w.launches)) }

func (w *waitDriver) dtoh(dst unsafe.Pointer, src uintptr, n int64) error {
	w.wait()
	return w.recordDriver.dtoh(dst, src, n)
}

func (w *waitDriver) htod(dst uintptr, src unsafe.Pointer, n int64, async bool) error {
	if !async {
		w.wait()
	}
	return w.recordDriver.htod(dst, src, n, async)
}

func (w *waitDriver) sync() error {
	w.wait()
	return w.recordDriver.sync()
}

// openWaitRecorder is Open on a waitDriver.
func openWaitRecorder(t *testing.T) (*Device, *waitDriver) {
	rec := &recordDriver{}
	drv := &waitDriver{recordDriver: rec}
	d := openOn(t, drv, rec.name())
	return d, drv
}

// TestUploadBlocksWaitsOnce: UploadBlocks puts host-sampled blocks and
// the gather's row list on the device in one upload, its only wait (it
// waited for each block's indptr and indices and for the row list), and
// a second call for the same blocks uploads only the row list.
func TestUploadBlocksWaitsOnce(t *testing.T) {
	d, drv := openWaitRecorder(t)
	g := sampleGraphForTest(t)
	blocks, err := data.SampleBlocks(g, []int{0, 5, 17, 4999, 1000}, []int{15, 10, 5}, 3)
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.Zeros(g.NumNodes(), 4).To(d.Backend())
	for call := range 2 {
		var w0, w1 int
		d.do(func(driver) error { w0 = len(drv.waits); return nil })
		feats, err := d.UploadBlocks(blocks, x)
		if err != nil {
			t.Fatal(err)
		}
		d.do(func(driver) error { w1 = len(drv.waits); return nil })
		if w1-w0 != 1 {
			t.Errorf("call %d: UploadBlocks waited %d times, want 1", call, w1-w0)
		}
		if r, c := feats.Rows, feats.Cols; r != len(blocks[0].SrcNodes) || c != 4 {
			t.Errorf("call %d: gathered %dx%d, want %dx4", call, r, c, len(blocks[0].SrcNodes))
		}
	}
}

// TestSampleBlocksWaitsOnce runs SampleBlocks' launch code on a recording
// driver (no GPU: the counts read back are zeros) and checks that a batch
// queues all its hops without waiting for the device and then waits in
// one place: the download's copies, back to back with no launch between
// them (the seeds go up without a wait and no hop reads its counts back;
// each hop did, before). It also checks every launch's argument count
// against the kernel's in the PTX.
func TestSampleBlocksWaitsOnce(t *testing.T) {
	d, drv := openWaitRecorder(t)
	rec := drv.recordDriver
	g := sampleGraphForTest(t)
	seeds := []int{0, 5, 17, 4999, 1000, 42, 7, 300, 1}
	fanouts := []int{15, 10, 5}
	for call := range 3 {
		var w0, l0 int
		if err := d.do(func(driver) error { w0, l0 = len(drv.waits), len(rec.launches); return nil }); err != nil {
			t.Fatal(err)
		}
		if _, _, err := d.SampleBlocks(g, nil, seeds, fanouts, uint64(call)); err != nil {
			t.Fatal(err)
		}
		var waits []int
		var sorts int
		if err := d.do(func(driver) error {
			waits = slices.Clone(drv.waits[w0:])
			for _, l := range rec.launches[l0:] {
				if l.kernel == "sort_rows" {
					sorts++
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if call == 0 { // the graph's upload waits
			continue
		}
		if sorts != len(fanouts) || len(waits) == 0 {
			t.Fatalf("call %d: %d hops sorted, %d waits", call, sorts, len(waits))
		}
		// Every hop's kernels were queued before the first wait.
		queued := 0
		for _, l := range rec.launches[l0:waits[0]] {
			if l.kernel == "sort_rows" {
				queued++
			}
		}
		if queued != len(fanouts) {
			t.Errorf("call %d: the first wait came after %d of %d hops were queued", call, queued, len(fanouts))
		}
		for _, w := range waits[1:] {
			if w != waits[0] {
				t.Errorf("call %d: SampleBlocks waited after %v launches: kernels were launched between its waits", call, waits)
				break
			}
		}
	}
	params := ptxParams()
	seen := map[string]bool{}
	for _, l := range rec.launches {
		want, ok := params[l.kernel]
		if !ok || want != l.args {
			t.Errorf("launch of %s with %d arguments; the PTX has %d (known %v)", l.kernel, l.args, want, ok)
		}
		seen[l.kernel] = true
	}
	for _, k := range []string{"sample_counts", "sample_edges", "sample_mark_dst", "sample_sizes", "sample_compact", "sample_relabel", "sort_rows"} {
		if !seen[k] {
			t.Errorf("%s was never launched", k)
		}
	}
}

// TestLoaderPreloadsLabels: a NeighborLoader with the device options puts
// each batch's labels in the device's label cache on its goroutine, so
// that CrossEntropy over the batch's Y uploads nothing and waits for
// nothing in the step (it uploaded them, waiting for the forward pass).
func TestLoaderPreloadsLabels(t *testing.T) {
	d, drv := openWaitRecorder(t)
	g := sampleGraphForTest(t)
	n := g.NumNodes()
	y := make([]int, n)
	for i := range y {
		y[i] = i % 3
	}
	seeds := []int{0, 5, 17, 4999, 1000, 42, 7, 300, 1, 2, 3, 4}
	l, err := data.NewNeighborLoader(g, tensor.Zeros(n, 4), y, seeds, data.NeighborLoaderOptions{
		BatchSize: 5, Fanouts: []int{4, 3}, Device: d.Backend(), SampleOnDevice: true})
	if err != nil {
		t.Fatal(err)
	}
	madeSoFar := func() int {
		d.labels.mu.Lock()
		defer d.labels.mu.Unlock()
		return d.labels.made
	}
	// The loader samples and preloads ahead of the consumer on its own
	// goroutine, so the cache's and the driver's counters move while a
	// batch is consumed: take every batch first (the iteration's end
	// stops the loader), then ask CrossEntropy about each.
	it := l.Iter()
	var batches []*data.MiniBatch
	for it.Next() {
		batches = append(batches, it.Batch())
	}
	err = it.Err()
	it.Close()
	if err != nil || len(batches) != 3 {
		t.Fatalf("%d batches, error %v", len(batches), err)
	}
	for _, b := range batches {
		logits, err := d.Zeros(len(b.Y), 3)
		if err != nil {
			t.Fatal(err)
		}
		var w0, w1 int
		made := madeSoFar()
		d.do(func(driver) error { w0 = len(drv.waits); return nil })
		if _, _, err := d.be.CrossEntropy(tbackend.FromStorage(logits, len(b.Y), 3), b.Y, nil); err != nil {
			t.Fatal(err)
		}
		d.do(func(driver) error { w1 = len(drv.waits); return nil })
		if m := madeSoFar(); m != made || w1 != w0 {
			t.Errorf("batch %d: CrossEntropy made %d label copies and waited %d times, want 0 and 0", b.Index, m-made, w1-w0)
		}
	}
}

// TestSampledStepWaitsOnce trains a 3-layer GraphSAGE (mean, ReLU and
// dropout between the layers, cross-entropy, Adam) on loader batches fed
// to a recording driver (host sampler, Device option: blocks and features
// put there by the loader, labels preloaded) and counts the step's waits
// for the device: one, the loss's read-back. Each IndexSelect of a
// block's destinations and each batch's labels used to add one.
func TestSampledStepWaitsOnce(t *testing.T) {
	defer func(on bool) { AutoReplay = on }(AutoReplay)
	AutoReplay = false // no graphs to choose between on a recorder
	d, drv := openWaitRecorder(t)
	dev := d.Backend()
	g := sampleGraphForTest(t)
	n := g.NumNodes()
	y := make([]int, n)
	seeds := make([]int, 300)
	for i := range y {
		y[i] = i % 5
	}
	for i := range seeds {
		seeds[i] = 13*i + 2
	}
	l, err := data.NewNeighborLoader(g, tensor.Randn(1, n, 16), y, seeds, data.NeighborLoaderOptions{
		BatchSize: 100, Fanouts: []int{6, 4, 3}, Device: dev})
	if err != nil {
		t.Fatal(err)
	}
	// The batches first, so that the loader's own waits are over.
	var batches []*data.MiniBatch
	it := l.Iter()
	for it.Next() {
		batches = append(batches, it.Batch())
	}
	it.Close()
	if err := it.Err(); err != nil || len(batches) != 3 {
		t.Fatalf("%d batches, error %v", len(batches), err)
	}
	convs, params := sageStack(dev, []int{16, 32, 32, 5})
	drop := nn.NewDropout(0.5)
	opt := nn.NewAdam(params, 0.01, 0)
	for k, b := range batches {
		var w0, w1 int
		d.do(func(driver) error { w0 = len(drv.waits); return nil })
		gs := b.Graphs()
		h := b.X
		for i, c := range convs {
			h = c.Forward(gs[i], h)
			if i < len(convs)-1 {
				h = nn.ReLUDropout(h, drop)
			}
		}
		opt.ZeroGrad()
		loss := nn.CrossEntropy(h, b.Y, nil)
		loss.Backward()
		opt.Step()
		loss.Item()
		d.do(func(driver) error { w1 = len(drv.waits); return nil })
		if k > 0 && w1-w0 != 1 { // the first step also uploads Adam's state
			t.Errorf("step %d waited for the device %d times, want 1 (the loss)", k, w1-w0)
		}
	}
}

// TestHostBlock: the host graph SampleBlocks makes of a downloaded CSR
// (hostBlock, the arrays taken as they are) is the graph NewBipartite
// builds from the same edges, for data.SampleBlocks' blocks (the device
// sampler's, in the emulation), parallel edges and empty rows included;
// a row pointer that does not fit is an error.
func TestHostBlock(t *testing.T) {
	g := sampleGraphForTest(t)
	blocks, err := data.SampleBlocks(g, []int{0, 5, 17, 4999, 1000, 1}, []int{15, -1, 3}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, bl := range blocks {
		h := bl.Graph
		src, dst := h.Edges()
		want, err := graph.NewBipartite(h.NumSrc(), h.NumNodes(), src, dst, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, direct := range []bool{true, false} {
			hostBlockDirect = direct
			got, err := hostBlock(h.NumSrc(), h.NumNodes(), slices.Clone(h.Indptr), slices.Clone(h.Indices))
			hostBlockDirect = true
			if err != nil {
				t.Fatal(err)
			}
			if got.NumSrc() != want.NumSrc() || got.NumNodes() != want.NumNodes() ||
				!slices.Equal(got.Indptr, want.Indptr) || !slices.Equal(got.Indices, want.Indices) {
				t.Fatalf("block %d (direct %t): hostBlock's graph differs from NewBipartite's", i, direct)
			}
			if tr, trw := got.Transpose(), want.Transpose(); !slices.Equal(tr.Indptr, trw.Indptr) || !slices.Equal(tr.Indices, trw.Indices) {
				t.Fatalf("block %d (direct %t): the transposes differ", i, direct)
			}
		}
	}
	if _, err := hostBlock(3, 2, []int{0, 1}, []int{0}); err == nil {
		t.Error("a row pointer of 2 entries for 2 rows was accepted")
	}
}

// TestHostBlockAllocates checks that hostBlock (hostBlockDirect) takes a
// block's CSR without allocating anything sized by its nodes: a block of
// a million sources and a thousand destinations costs well under the
// 8 MB that one int per source would (the empty graph.NewBipartite it
// went through before allocated and scanned such arrays), and a source
// out of range is refused with a clear error.
func TestHostBlockAllocates(t *testing.T) {
	const nsrc, ndst = 1 << 20, 1000
	ptr := make([]int, ndst+1)
	src := make([]int, 3*ndst)
	for v := range ndst {
		ptr[v+1] = 3 * (v + 1)
		for k := range 3 {
			src[3*v+k] = (v*977 + k*131071) % nsrc
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	g, err := hostBlock(nsrc, ndst, ptr, src)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if g.NumSrc() != nsrc || g.NumNodes() != ndst || g.NumEdges() != 3*ndst {
		t.Fatalf("hostBlock gave %v", g)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
		t.Errorf("hostBlock allocated %d bytes for a block of %d sources, want under 64 KiB", got, nsrc)
	}
	src[5] = nsrc
	if _, err := hostBlock(nsrc, ndst, ptr, src); !errors.Is(err, graph.ErrBadEdge) {
		t.Errorf("a source out of range: error %v, want one wrapping graph.ErrBadEdge", err)
	}
}
