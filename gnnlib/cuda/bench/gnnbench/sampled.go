package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/cuda"
	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// The sampled part's three feeds, side by side.
const (
	feedHost     = "host"     // host sampler, features and blocks uploaded in the step
	feedResident = "resident" // host sampler, features resident on the device, blocks' transposes built there
	feedDevice   = "device"   // sampled on the device (uniform with replacement)
)

// sampledSAGE trains a 3-layer GraphSAGE (mean, hidden 256) on
// neighbour-sampled mini-batches (fan-outs 15, 10, 5 from the seeds
// outwards, batches of 1024 seeds) with gnnlib/nn on the device:
// data.NeighborLoader samples on workers background goroutines while the
// device runs the step on the previous batch (fin features and
// classes classes: 128 and 40 arxiv-sized, 100 and 47 products-sized).
// With feed host, each
// batch's features and blocks go to the device in the step; with
// resident, the loader's Device option keeps the features on the device
// and gathers there, and uploads the host-sampled blocks (transposes built
// on the device) on its goroutines; with device, SampleOnDevice samples
// there too. It reports the time per batch, the part of it the step
// waited for the loader, the step's own time (the rest), the sampler's
// own time per batch (one batch
// sampled alone: on the host, on the host plus UploadBlocks, or
// Device.SampleBlocks, each to the end of its device work), the peak and
// the nodes sampled a batch.
//
// With productFirst, nn.SAGEAggregateFirst is off for the run: each
// layer computes mean(x·W_neigh), the product over every source, instead
// of mean(x)·W_neigh, the product over the destinations.
//
// With the device feed, the loader's ReuseBlocks is on, and the split of
// Device.SampleBlocks' time per call (tune.SampleSplit: lock, queue,
// download and wait, widen, host, register) is printed; with
// samplerBefore, the sampler runs as before (tune.SetSampler(false):
// its host work under its lock and on one goroutine, fresh memory, its
// launches and download waited for; no ReuseBlocks), for the A/B.
//
// prefetch is the loader's Prefetch (0: its default, one batch a worker).
func sampledSAGE(d *cuda.Device, g *csr, fin, classes, batches, workers, prefetch int, feed string, productFirst, samplerBefore bool) {
	variant := fmt.Sprintf("%s feed, %d sampler goroutines", feed, workers)
	if prefetch > 0 {
		variant += fmt.Sprintf(", prefetch %d", prefetch)
	}
	if !tune.SampleParallelHost {
		variant += ", each call's host work serial"
	}
	if !nn.SAGEFused {
		variant += ", SAGEConv composed (nn.SAGEFused off)"
	}
	if productFirst {
		variant += ", SAGE product first"
	}
	if stepLabel != "" {
		variant += ", step " + stepLabel
	}
	if feed == feedDevice {
		if samplerBefore {
			variant += ", sampler as before (locked host work on one goroutine, fresh memory, waited launches and download)"
		} else {
			variant += ", blocks reused"
		}
	}
	if samplerBefore {
		// Only then: SetSampler(true) would also undo the switches the
		// A/Bs set for the call (-sampled-serial-ab's
		// tune.SampleParallelHost, which it had turned back on).
		defer tune.SetSampler(false)()
	}
	defer func(on bool) { nn.SAGEAggregateFirst = on }(nn.SAGEAggregateFirst)
	nn.SAGEAggregateFirst = !productFirst
	// A panic (an op the device lacks on blocks) ends this part, not the run.
	defer func() {
		if e := recover(); e != nil {
			report("sampled-sage", g.name, variant, 0, 0, fmt.Sprintf("failed: %v", e))
		}
	}()
	in, ok := sampledInputs[g]
	if !ok || in.x.Size(1) != fin {
		// Made once a graph: the A/B's two runs share them.
		hg := hostGraph(g)
		in = sampledInput{hg, tensor.Randn(1, g.n, fin)}
		sampledInputs[g] = in
	}
	hg, x := in.hg, in.x
	var err error
	y := make([]int, g.n)
	seeds := make([]int, g.n)
	for i := range y {
		y[i], seeds[i] = i%classes, i
	}
	fanouts := []int{15, 10, 5} // from the seeds outwards, as PyG's num_neighbors
	o := data.NeighborLoaderOptions{BatchSize: 1024, Fanouts: fanouts, Shuffle: true, Seed: 1, Workers: workers, Prefetch: prefetch}
	if feed != feedHost {
		o.Device = d.Backend()
		o.SampleOnDevice = feed == feedDevice
		o.ReuseBlocks = !samplerBefore
	}
	check(d.Synchronize())
	d.ResetPeak()
	loader, err := data.NewNeighborLoader(hg, x, y, seeds, o)
	check(err)
	step := sageStep(d.Backend(), fin, 256, classes)
	it := loader.Iter()
	defer it.Close()
	var wait, total time.Duration
	var sampled, edges, steps int
	var first, last float32
	var split tune.SampleSplit
	defer func() { tune.SampleTiming = nil }()
	t0 := time.Now()
	var rs0 cuda.ReplayStats
	var ms0 cuda.MemStats
	for steps < batches+2 {
		if steps == 2 && feed == feedDevice {
			// Batches sampled from here on (the workers run ahead).
			tune.SampleTiming = &split
		}
		w0 := time.Now()
		if !it.Next() {
			break
		}
		b := it.Batch()
		if steps >= 2 { // two warm-up batches
			wait += time.Since(w0)
			sampled += b.NumSampled()
			for _, bl := range b.Blocks {
				edges += bl.Graph.NumEdges()
			}
		}
		last = step(b)
		if steps == 1 {
			first = last
			ms0, _ = d.MemStats()
			t0 = time.Now()
			rs0 = d.ReplayStats()
		}
		steps++
	}
	total = time.Since(t0)
	rs1 := d.ReplayStats()
	ms1, _ := d.MemStats()
	it.Close() // no sampling ahead while the sampler is timed alone
	tune.SampleTiming = nil
	check(it.Err())
	n := steps - 2
	if n < 1 {
		fmt.Fprintln(os.Stderr, "sampled-sage: too few batches")
		return
	}
	peak := peakGiB(d)
	// The sampler alone: one batch of the same size, on this goroutine
	// (the second of two, after the graph's upload in the first).
	var sample time.Duration
	xd := x
	if feed != feedHost {
		xd = x.To(d.Backend())
	}
	for r := 0; r < 2; r++ {
		check(d.Synchronize())
		s0 := time.Now()
		switch feed {
		case feedHost:
			_, err = hg.SampleNeighbors(seeds[:1024], fanouts, 7)
		case feedResident:
			var bl []graph.Block
			if bl, err = hg.SampleNeighbors(seeds[:1024], fanouts, 7); err == nil {
				_, err = d.UploadBlocks(bl, xd)
			}
		case feedDevice:
			// As the loader samples (ReuseBlocks unless samplerBefore).
			if r, ok := d.Backend().(blockReuser); ok && !samplerBefore {
				var release func()
				_, _, release, err = r.SampleBlocksReusing(hg, xd, seeds[:1024], fanouts, 7)
				if err == nil {
					release()
				}
			} else {
				_, _, err = d.SampleBlocks(hg, xd, seeds[:1024], fanouts, 7)
			}
		}
		check(err)
		check(d.Synchronize())
		sample = time.Since(s0)
	}
	ms := func(t time.Duration) float64 { return float64(t.Microseconds()) / 1e3 }
	if c := split.Calls; c > 0 {
		per := func(t time.Duration) float64 { return ms(t) / float64(c) }
		fmt.Fprintf(os.Stderr, "sampler split (%s, %s), per SampleBlocks call over %d in the loader: lock %.3f, queue %.3f, download+wait %.3f, widen %.3f, host %.3f, register+gather %.3f ms\n",
			g.name, variant, c, per(split.Lock), per(split.Queue), per(split.Download), per(split.Widen), per(split.Host), per(split.Register))
	}
	if n > 0 {
		// Whether the device recorded the step (AutoReplay) or launched
		// it kernel by kernel, the sampler's launches included.
		per := func(a, b int64) float64 { return float64(b-a) / float64(n) }
		// The allocator's reserve grows only by allocations from the
		// driver (its misses).
		fmt.Fprintf(os.Stderr, "replay (%s, %s), per batch over %d: %.1f launches, %.1f segments, %.1f replayed as graphs (%.1f nodes), %.1f nodes eager, %.1f node updates, %.2f graphs built, %.2f refused; allocator reserve %.0f -> %.0f MiB over the batches\n",
			g.name, variant, n, per(rs0.Launches, rs1.Launches), per(rs0.Segments, rs1.Segments), per(rs0.Replays, rs1.Replays), per(rs0.ReplayNodes, rs1.ReplayNodes),
			per(rs0.EagerNodes, rs1.EagerNodes), per(rs0.Updates, rs1.Updates), per(rs0.Built, rs1.Built), per(rs0.Failed, rs1.Failed),
			float64(ms0.Reserved)/(1<<20), float64(ms1.Reserved)/(1<<20))
	}
	report("sampled-sage", g.name, "3 layers, hidden 256, fan-outs 15,10,5, batch 1024, "+variant, ms(total)/float64(n), peak,
		fmt.Sprintf("per batch over %d batches: step %.3f ms, waited %.3f ms for the loader; sampler alone %.3f ms a batch; %d nodes and %d edges sampled a batch; loss %.3f -> %.3f",
			n, ms(total-wait)/float64(n), ms(wait)/float64(n), ms(sample), sampled/n, edges/n, first, last))
}

// sampledInput is a graph's host copy and features for sampledSAGE,
// kept in sampledInputs from one call to the next.
type sampledInput struct {
	hg *graph.Graph
	x  *tensor.Tensor
}

var sampledInputs = map[*csr]sampledInput{}

// blockReuser is gnnlib/cuda's backend as data.NeighborLoader's
// ReuseBlocks uses it.
type blockReuser interface {
	SampleBlocksReusing(g *graph.Graph, x *tensor.Tensor, seeds, fanouts []int, seed uint64) ([]graph.Block, tensor.Storage, func(), error)
}

// sageStep returns the training step of sampledSAGE on dev (nil: the
// CPU): a 3-layer GraphSAGE (mean) from fin features through hidden units
// to classes, ReLU and dropout 0.5 between the layers
// (nn.ForwardReLUDropout: nn.ReLUDropout of the layer's output, or with
// nn.SAGEFused the bias, ReLU and dropout in one pass over it),
// cross-entropy on the batch's seeds and an Adam step; it returns the loss.
func sageStep(dev tensor.Backend, fin, hidden, classes int) func(b *data.MiniBatch) float32 {
	dims := []int{fin, hidden, hidden, classes}
	var convs []*nn.SAGEConv
	var params []*tensor.Tensor
	for i := 0; i+1 < len(dims); i++ {
		c := nn.NewSAGEConv(dims[i], dims[i+1], "mean")
		nn.To(c, dev)
		convs = append(convs, c)
		params = append(params, c.Params()...)
	}
	drop := nn.NewDropout(0.5)
	opt := nn.NewAdam(params, 0.01, 0)
	return func(b *data.MiniBatch) float32 {
		if stepBF16 {
			restore := tensor.SetAutocast(tensor.BFloat16)
			defer restore()
		}
		gs := b.Graphs()
		h := b.X.To(dev)
		for i, c := range convs {
			if i < len(convs)-1 {
				h = nn.ForwardReLUDropout(c, gs[i], h, drop)
			} else {
				h = c.Forward(gs[i], h)
			}
		}
		opt.ZeroGrad()
		loss := nn.CrossEntropy(h, b.Y, nil)
		loss.Backward()
		opt.Step()
		return loss.Item()
	}
}

// sampledFeeds picks the sampled part's arxiv-sized variants.
var sampledFeeds = flag.String("sampled-feeds", "host1,host4,resident,device,productfirst",
	"comma-separated arxiv-sized variants of the sampled part: host1 and host4 (host feed, 1 or 4 sampler goroutines), resident (features on the device, host sampler), device (sampled on the device), productfirst (device, nn.SAGEAggregateFirst off); -products adds the products-sized device feed")

// sampledWorkers are the sampler goroutine counts of the products-sized
// device feed.
var sampledWorkers = flag.String("sampled-workers", "4,8", "comma-separated counts of sampler goroutines (the loader's Workers) for the products-sized device feed; the step's A/B (-sampled-step-ab) uses the first")

// sampledFusedAB runs the products-sized device feed again with
// nn.SAGEFused flipped.
var sampledFusedAB = flag.Bool("sampled-fused-ab", false, "the products-sized device feed again, with the first -sampled-workers count, with nn.SAGEFused flipped (SAGEConv as one op: the root term added in place over the destinations' rows; or the composed ops)")

// sampledSerialAB runs the products-sized device feed again with
// tune.SampleParallelHost off.
var sampledSerialAB = flag.Bool("sampled-serial-ab", false, "the products-sized device feed again, each -sampled-workers count, with tune.SampleParallelHost off (each SampleBlocks call's host work on its own goroutine)")

// sampledAB runs the device feeds (arxiv-sized device, products-sized)
// first with the sampler as before (tune.SetSampler(false), no
// ReuseBlocks), then as now, in one run.
var sampledAB = flag.Bool("sampled-ab", true, "the sampled part's device feeds first with the sampler as before (host work under its lock, fresh memory every batch, each launch and the download waited for, host blocks on one goroutine: tune.SetSampler(false)), then as now")

// sampledStepAB runs the products-sized device feed again with the
// step's host switches on, one after another (sampledStepVariants).
var sampledStepAB = flag.Bool("sampled-step-ab", true, "the products-sized device feed again with the training step's host switches: kernel by kernel (cuda.AutoReplay off) with launches waited for, then launches and fills posted (tune.AsyncLaunch), copies posted (tune.PostFillCopy) and SAGEConv's terms freed at once (nn.SAGEFreeSums) one after another; then the terms freed with the rest as it is; then under Autocast(BFloat16), as it is and kernel by kernel with the three switches")

// stepBF16 runs sageStep's steps under tensor.Autocast(BFloat16).
var stepBF16 bool

// stepLabel names the step's switches in sampledSAGE's variant ("" for
// the defaults).
var stepLabel string

// sampledStep is one setting of the training step's host switches:
// AutoReplay off (launches kernel by kernel, as GNNLAB_CUDA_GRAPHS=0) or
// as it is, and the switches that BenchmarkSampledStepHost compares.
type sampledStep struct {
	label                              string
	noReplay, async, fills, free, bf16 bool
	// bf16Add sets tune.BF16Add (same-shape adds in bfloat16) with
	// noReplay; the other variants leave it as it is.
	bf16Add bool
}

// sampledStepVariants are the settings -sampled-step-ab runs. On gnnlib/cuda's
// recording driver (BenchmarkSampledStepHost, products-sized) the step
// made 69 synchronous calls to the device goroutine kernel by kernel
// with launches waited for, 3 with launches and fills posted
// (tune.AsyncLaunch) and 1 with copies posted too (tune.PostFillCopy),
// the loss's read-back, besides the allocator's misses; recorded, 3.
var sampledStepVariants = []sampledStep{
	{"kernel by kernel, launches waited for (AutoReplay and AsyncLaunch off)", true, false, false, false, false, false},
	{"kernel by kernel, launches and fills posted", true, true, false, false, false, false},
	{"kernel by kernel, launches, fills and copies posted", true, true, true, false, false, false},
	{"kernel by kernel, launches, fills and copies posted, SAGE terms freed", true, true, true, true, false, false},
	{"SAGE terms freed (the other switches and AutoReplay as they are)", false, false, false, true, false, false},
	// Under Autocast(BFloat16) the products run on tensor cores: 94
	// launches a step on the recording driver (sm_90) against 56.
	{"bfloat16 (Autocast; the switches and AutoReplay as they are)", false, false, false, false, true, false},
	{"bfloat16 (Autocast), kernel by kernel, launches, fills and copies posted, SAGE terms freed", true, true, true, true, true, false},
	// The same with SAGEConv's sum of its two terms (and the other
	// same-shape adds) in bfloat16: on the recording driver
	// (BenchmarkSampledStepHost) 6 widenings instead of 12, 14
	// roundings instead of 17 and no float32 adds instead of 3 a step.
	{"bfloat16 (Autocast), kernel by kernel, launches, fills and copies posted, SAGE terms freed, same-shape adds in bfloat16 (tune.BF16Add)", true, true, true, true, true, true},
}

// run calls f with the step's switches set as s says, then restores them.
func (s sampledStep) run(f func()) {
	defer func(r, a, p, fr, ba bool) {
		cuda.AutoReplay, tune.AsyncLaunch, tune.PostFillCopy, nn.SAGEFreeSums, tune.BF16Add = r, a, p, fr, ba
		stepLabel, stepBF16 = "", false
	}(cuda.AutoReplay, tune.AsyncLaunch, tune.PostFillCopy, nn.SAGEFreeSums, tune.BF16Add)
	stepBF16 = s.bf16
	if s.noReplay {
		// Kernel by kernel, the switches exactly as s says.
		cuda.AutoReplay, tune.AsyncLaunch, tune.PostFillCopy = false, s.async, s.fills
		tune.BF16Add = s.bf16Add
	}
	nn.SAGEFreeSums = s.free
	stepLabel = s.label
	f()
}

// intList parses -sampled-workers' comma-separated list of positive
// counts, ending the run where one is not.
func intList(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			log.Fatalf("-sampled-workers %q: want positive counts", s)
		}
		out = append(out, n)
	}
	return out
}
