package quant_test

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/quant"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// BenchmarkGEMM compares the INT8 SWAR kernel with gnnlib/tensor's
// float32 kernel on the shapes of LeNet-5's layers (as im2col GEMMs and
// dense layers over a batch of 256) and of a square product.
func BenchmarkGEMM(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	for _, sz := range [][3]int{{784, 25, 6}, {100, 150, 16}, {256, 400, 120}, {2708, 16, 7}, {512, 512, 512}} {
		m, k, n := sz[0], sz[1], sz[2]
		a8, b8 := make([]int8, m*k), make([]int8, k*n)
		for i := range a8 {
			a8[i] = int8(r.Intn(256) - 128)
		}
		for i := range b8 {
			b8[i] = int8(r.Intn(255) - 127)
		}
		af, bf := make([]float32, m*k), make([]float32, k*n)
		for i := range af {
			af[i] = float32(a8[i])
		}
		for i := range bf {
			bf[i] = float32(b8[i])
		}
		packed := quant.PackInt8(b8, k, n)
		c32, cf := make([]int32, m*n), make([]float32, m*n)
		name := fmt.Sprintf("%dx%dx%d", m, k, n)
		macs := float64(m * k * n)
		b.Run(name+"/fp32", func(b *testing.B) {
			for b.Loop() {
				tensor.MatMulInto(cf, af, bf, m, k, n)
			}
			b.ReportMetric(macs*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		})
		b.Run(name+"/int8", func(b *testing.B) {
			for b.Loop() {
				quant.GEMMInt8(c32, a8, m, packed)
			}
			b.ReportMetric(macs*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		})
	}
}

// BenchmarkLeNet5Inference times one forward pass over a batch of 256
// digits, FP32 against the INT8 integer path (weights need not be trained
// for timing).
func BenchmarkLeNet5Inference(b *testing.B) {
	nn.Seed(1)
	model := nn.NewLeNet5()
	model.Eval()
	x := tensor.Rand(2, 256, 1, 28, 28)
	for _, bits := range []int{0, 8, 4} {
		name, forward := "fp32", func() { tensor.NoGrad(func() { model.Forward(x) }) }
		if bits > 0 {
			q, err := quant.NewSequential(model, quant.Config{Bits: bits})
			if err != nil {
				b.Fatal(err)
			}
			if err := q.Calibrate(x); err != nil {
				b.Fatal(err)
			}
			if err := q.Convert(); err != nil {
				b.Fatal(err)
			}
			name = fmt.Sprintf("int%d", bits)
			forward = func() {
				if _, err := q.Forward(x); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				forward()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/inference")
		})
	}
}

// BenchmarkGCNInference times one full-graph forward pass of a two-layer
// GCN, FP32 against the INT8 integer path, on Cora (sparse bag-of-words
// features) and on a stochastic block model of 100,000 nodes (dense
// features, average degree about 20) where the products and the
// aggregation outweigh everything else. "int8" quantizes the fixed input
// features once beforehand (PrepareInput), as a transductive task allows;
// "int8-raw" quantizes them in every pass. The FP32 model has nothing to
// prepare: its first product reads the features as they are.
func BenchmarkGCNInference(b *testing.B) {
	type input struct {
		name string
		g    *graph.Graph
		x    *tensor.Tensor
	}
	var inputs []input
	if ds, err := data.Planetoid("cora"); err == nil {
		ds.NormalizeFeatures()
		inputs = append(inputs, input{"cora", ds.Graph, ds.X})
	} else {
		b.Logf("Cora not available (set GNNLAB_DATA): %v", err)
	}
	const nodes, feats = 100000, 64
	g, x, _, err := graph.SBM(graph.SBMOptions{Sizes: []int{50000, 50000}, PIn: 19.0 / 50000, POut: 1.0 / 50000, Features: feats, Signal: 1, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	inputs = append(inputs, input{"sbm100k", g, tensor.Wrap(x, nodes, feats)})
	for _, in := range inputs {
		for _, hidden := range []int{16, 64} {
			nn.Seed(1)
			model := nn.NewGCN(in.x.Size(1), hidden, 7)
			model.Eval()
			q, err := quant.NewGNN(model, quant.Config{})
			if err != nil {
				b.Fatal(err)
			}
			if err := q.Calibrate(in.g, in.x); err != nil {
				b.Fatal(err)
			}
			if err := q.Convert(); err != nil {
				b.Fatal(err)
			}
			name := fmt.Sprintf("%s/hidden%d", in.name, hidden)
			b.Run(name+"/fp32", func(b *testing.B) {
				for b.Loop() {
					tensor.NoGrad(func() { model.Forward(in.g, in.x) })
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/inference")
			})
			b.Run(name+"/int8-raw", func(b *testing.B) {
				for b.Loop() {
					if _, err := q.Forward(in.g, in.x); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/inference")
			})
			if err := q.PrepareInput(in.x); err != nil {
				b.Fatal(err)
			}
			b.Run(name+"/int8", func(b *testing.B) {
				for b.Loop() {
					if _, err := q.Forward(in.g, in.x); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/inference")
			})
		}
	}
}
