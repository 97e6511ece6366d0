package cuda

import (
	"math"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// TestSampledStepKernelTimes is a device profile, not a check: it runs
// BenchmarkSampledStepHost's products-sized sampled GraphSAGE step (one
// host-sampled batch of productsLike, 100 features, 3 x 256, 47 classes)
// on a GPU and logs, in float32 and (where the device has them) under
// Autocast(BFloat16), the device time of each kernel per step (each
// launch timed alone, so launch gaps are not counted) and their total,
// then the wall time per step kernel by kernel with launches waited
// for, with launches, fills and copies posted and SAGEConv's terms freed
// (tune.AsyncLaunch, tune.PostFillCopy, nn.SAGEFreeSums), and recorded
// and replayed (GraphReplay): where the step's time goes, and how far it
// is from its kernels' sum. It fails only when a step fails or its loss
// is not finite.
func TestSampledStepKernelTimes(t *testing.T) {
	d := openOrSkip(t)
	if testing.Short() {
		t.Skip("makes a products-sized graph (1 GB)")
	}
	sampledStepKernelTimes(t, d, productsLike())
}

// TestSampledStepKernelTimesRecorder runs TestSampledStepKernelTimes'
// code on the recording driver (sm_90, so bfloat16 too) over a smaller
// graph: the profile and every variant's steps run.
func TestSampledStepKernelTimesRecorder(t *testing.T) {
	d, _ := openRecorder(t)
	d.desc = "record (sm_90, no GPU)"
	g := smallProductsLike(t)
	sampledStepKernelTimes(t, d, g)
}

// smallProductsLike is productsLike at 30,000 nodes (20 in-neighbours
// each).
func smallProductsLike(t *testing.T) *graph.Graph {
	g, err := uniformInGraph(30_000, 20, 2)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func sampledStepKernelTimes(t *testing.T, d *Device, g *graph.Graph) {
	defer func(a, g, as, f, fr bool) {
		AutoReplay, GraphReplay, tune.AsyncLaunch, tune.PostFillCopy, nn.SAGEFreeSums = a, g, as, f, fr
	}(AutoReplay, GraphReplay, tune.AsyncLaunch, tune.PostFillCopy, nn.SAGEFreeSums)
	AutoReplay, GraphReplay = false, false
	const fin, hidden, classes, steps = 100, 256, 47, 5
	batch := newSampledBatch(t, d, g, fin, classes)
	dts := []tensor.DType{tensor.Float32}
	if d.hasBF16() {
		dts = append(dts, tensor.BFloat16)
	}
	for _, dt := range dts {
		f32 := sampledStepFunc(d.Backend(), fin, hidden, classes)
		step := func() float32 {
			var loss float32
			tensor.Autocast(dt, func() { loss = f32(batch) })
			if math.IsNaN(float64(loss)) || math.IsInf(float64(loss), 0) {
				t.Fatalf("%v: loss %v", dt, loss)
			}
			return loss
		}
		step()
		step()
		tune.AsyncLaunch, tune.PostFillCopy, nn.SAGEFreeSums, GraphReplay = false, false, false, false
		times, calls := timeKernels(t, d, func() {
			for range steps {
				step()
			}
		})
		total, table := kernelTable(times, calls, steps)
		t.Logf("%v: %.3f ms of device time per step, each launch timed alone:%s", dt, total, table)
		for _, v := range []struct {
			name                      string
			async, fills, free, graph bool
		}{
			{"kernel by kernel, waited", false, false, false, false},
			{"kernel by kernel, launches, fills and copies posted, terms freed", true, true, true, false},
			{"replayed", false, false, false, true},
			{"replayed, terms freed", false, false, true, true},
		} {
			tune.AsyncLaunch, tune.PostFillCopy, nn.SAGEFreeSums, GraphReplay = v.async, v.fills, v.free, v.graph
			step()
			step()
			if err := d.Synchronize(); err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			for range steps {
				step()
			}
			t.Logf("%v, %s: %.3f ms a step (wall, %d steps)", dt, v.name, float64(time.Since(t0).Microseconds())/1e3/steps, steps)
		}
		tune.AsyncLaunch, tune.PostFillCopy, nn.SAGEFreeSums, GraphReplay = false, false, false, false
		if err := d.EmptyCache(); err != nil {
			t.Fatal(err)
		}
	}
}
