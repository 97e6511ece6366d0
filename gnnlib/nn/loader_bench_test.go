package nn_test

import (
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// BenchmarkNeighborSampler measures the sampler alone (one
// SampleNeighbors call per batch of 1024 seeds, on one goroutine) on the
// 100k-node graph, in seeds per second.
func BenchmarkNeighborSampler(b *testing.B) {
	task := synthetic100k(b)
	for _, c := range []struct {
		name    string
		fanouts []int
	}{{"fanouts=15,10,5", []int{15, 10, 5}}, {"fanouts=25,10", []int{25, 10}}} {
		b.Run(c.name, func(b *testing.B) {
			const batch = 1024
			seeds := make([]int, batch)
			b.ReportAllocs()
			sampled := 0
			for i := 0; i < b.N; i++ {
				for j := range seeds {
					seeds[j] = (i*batch + j*97) % task.g.NumNodes()
				}
				blocks, err := task.g.SampleNeighbors(seeds, c.fanouts, uint64(i))
				if err != nil {
					b.Fatal(err)
				}
				sampled += len(blocks[0].SrcNodes)
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "seeds/s")
			b.ReportMetric(float64(sampled)/float64(b.N), "nodes/batch")
		})
	}
}

// BenchmarkSampledEpoch trains GraphSAGE (hidden 64) for one epoch of 8
// batches of 512 seeds (fan-outs 10, 5) on the 100k-node graph with 2
// threads, three ways: on batches sampled beforehand (training alone),
// sampling each batch before training on it (inline), and with the
// NeighborLoader sampling ahead on one background goroutine (loader). The
// sampler's time is hidden when loader is close to presampled, not to
// inline.
func BenchmarkSampledEpoch(b *testing.B) {
	task := synthetic100k(b)
	defer tensor.SetThreads(tensor.SetThreads(2))
	seeds := task.train[:8*512]
	o := data.NeighborLoaderOptions{BatchSize: 512, Fanouts: []int{10, 5}, Shuffle: true, Seed: 1}
	l, err := data.NewNeighborLoader(task.g, task.x, task.y, seeds, o)
	if err != nil {
		b.Fatal(err)
	}
	nn.Seed(1)
	model := nn.NewGraphSAGE(task.feats, 64, task.labels, "mean")
	opt := nn.NewAdam(model.Params(), 0.01, 0)
	step := func(mb *data.MiniBatch) {
		loss := nn.CrossEntropy(model.ForwardBlocks(mb.Graphs(), mb.X), mb.Y, nil)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	epoch := func() []*data.MiniBatch {
		var bs []*data.MiniBatch
		it := l.Iter()
		for it.Next() {
			bs = append(bs, it.Batch())
		}
		it.Close()
		if it.Err() != nil {
			b.Fatal(it.Err())
		}
		return bs
	}
	b.Run("presampled", func(b *testing.B) {
		bs := epoch()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for _, mb := range bs {
				step(mb)
			}
		}
	})
	b.Run("inline", func(b *testing.B) {
		var sampling time.Duration
		for i := 0; i < b.N; i++ {
			// Sampling and training take turns on the same goroutine.
			for k := 0; k < len(seeds); k += o.BatchSize {
				t0 := time.Now()
				batch := seeds[k : k+o.BatchSize]
				blocks, err := task.g.SampleNeighbors(batch, o.Fanouts, uint64(i*len(seeds)+k))
				if err != nil {
					b.Fatal(err)
				}
				mb := &data.MiniBatch{Blocks: blocks, Seeds: batch, Y: make([]int, len(batch))}
				tensor.NoGrad(func() { mb.X = task.x.IndexSelect(blocks[0].SrcNodes) })
				for j, s := range batch {
					mb.Y[j] = task.y[s]
				}
				sampling += time.Since(t0)
				step(mb)
			}
		}
		b.ReportMetric(float64(sampling.Milliseconds())/float64(b.N), "ms-sampling/op")
	})
	b.Run("loader", func(b *testing.B) {
		var waiting time.Duration
		for i := 0; i < b.N; i++ {
			it := l.Iter()
			for {
				t0 := time.Now()
				ok := it.Next()
				waiting += time.Since(t0)
				if !ok {
					break
				}
				step(it.Batch())
			}
			it.Close()
		}
		b.ReportMetric(float64(waiting.Milliseconds())/float64(b.N), "ms-waiting/op")
	})
}
