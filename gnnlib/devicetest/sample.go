package devicetest

import (
	"fmt"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// SampleBlocks is data.BlockSampler on the Fake: data.SampleBlocks, the
// host model of gnnlib/cuda's device sampler (the same blocks for the same
// seed), with the rows of blocks[0].SrcNodes of x copied into Fake
// storage. It runs on the loader's goroutines, so it records no op.
func (f *Fake) SampleBlocks(g *graph.Graph, x *tensor.Tensor, seeds, fanouts []int, seed uint64) ([]graph.Block, tensor.Storage, error) {
	blocks, err := data.SampleBlocks(g, seeds, fanouts, seed)
	if err != nil || x == nil {
		return blocks, nil, err
	}
	return blocks, f.gatherRows(x, blocks[0].SrcNodes), nil
}

// UploadBlocks is data.BlockSampler on the Fake: the blocks' graphs are
// charged at their first use by an op, as any host graph's; the rows of
// blocks[0].SrcNodes of x are copied into Fake storage.
func (f *Fake) UploadBlocks(blocks []graph.Block, x *tensor.Tensor) (tensor.Storage, error) {
	if x == nil || len(blocks) == 0 {
		return nil, nil
	}
	return f.gatherRows(x, blocks[0].SrcNodes), nil
}

func (f *Fake) gatherRows(x *tensor.Tensor, rows []int) tensor.Storage {
	src := f.host(x).Data()
	w := x.Size(1)
	out := make([]float32, len(rows)*w)
	for i, r := range rows {
		copy(out[i*w:i*w+w], src[r*w:r*w+w])
	}
	return f.newStore(out)
}

// CheckSampledLayers trains one step of two-layer models on batches that
// data.NeighborLoader samples on dev (SampleOnDevice; dev must implement
// data.BlockSampler, else the check is skipped) and on the CPU over the
// host copies of the same blocks, from the same parameters: SAGEConv
// (mean and max), GCNConv, GATConv and GATv2Conv (two heads concatenated,
// then one) on blocks of a random graph with a hub (node 1, an in- and
// out-neighbour of every node, so that its rows are heavy both ways).
// The losses, the outputs and every parameter's gradient agree within tol.
func CheckSampledLayers(t *testing.T, dev tensor.Backend, tol Tolerance) {
	if _, ok := dev.(data.BlockSampler); !ok {
		t.Skipf("%v samples no blocks (no data.BlockSampler)", dev)
	}
	const n, fin, classes = 3000, 16, 5
	g, err := graph.ErdosRenyiM(n, 24000, 5)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := g.Edges()
	for u := 2; u < n; u++ {
		src, dst = append(src, u, 1), append(dst, 1, u)
	}
	if g, err = graph.FromEdges(n, src, dst); err != nil {
		t.Fatal(err)
	}
	x := tensor.Randn(8, n, fin)
	y := make([]int, n)
	seeds := make([]int, 600)
	for i := range y {
		y[i] = i % classes
	}
	for i := range seeds {
		seeds[i] = 5*i + 1 // node 1 in the first batch
	}
	o := data.NeighborLoaderOptions{BatchSize: 200, Fanouts: []int{8, 4}, Seed: 3, Workers: 2, Device: dev, SampleOnDevice: true}
	loader, err := data.NewNeighborLoader(g, x, y, seeds, o)
	if err != nil {
		t.Fatal(err)
	}
	it := loader.Iter()
	defer it.Close()
	type layer interface {
		nn.Module
		Forward(*graph.Graph, *tensor.Tensor) *tensor.Tensor
	}
	kinds := []struct {
		name string
		make func() [2]layer
	}{
		{"SAGE-mean", func() [2]layer { return [2]layer{nn.NewSAGEConv(fin, 8, "mean"), nn.NewSAGEConv(8, classes, "mean")} }},
		{"SAGE-max", func() [2]layer { return [2]layer{nn.NewSAGEConv(fin, 8, "max"), nn.NewSAGEConv(8, classes, "max")} }},
		{"GCN", func() [2]layer { return [2]layer{nn.NewGCNConv(fin, 8), nn.NewGCNConv(8, classes)} }},
		{"GAT", func() [2]layer {
			return [2]layer{nn.NewGATConv(fin, 4, 2, true, 0), nn.NewGATConv(8, classes, 1, false, 0)}
		}},
		{"GATv2", func() [2]layer {
			return [2]layer{nn.NewGATv2Conv(fin, 4, 2, true, 0), nn.NewGATv2Conv(8, classes, 1, false, 0)}
		}},
	}
	for batch := 0; batch < 2 && it.Next(); batch++ {
		b := it.Batch()
		if !b.X.IsOnDevice() {
			t.Fatal("the batch's features are on the host")
		}
		gs := b.Graphs()
		hostX := x.IndexSelect(b.Blocks[0].SrcNodes)
		agree(t, "the batch's features", b.X, hostX, 0)
		for _, k := range kinds {
			host, onDev := k.make(), k.make()
			for i := range host {
				for j, p := range onDev[i].Params() {
					copy(p.Data(), host[i].Params()[j].Data())
				}
				nn.To(onDev[i], dev)
			}
			run := func(ls [2]layer, h *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
				h = ls[0].Forward(gs[0], h).ReLU()
				h = ls[1].Forward(gs[1], h)
				loss := nn.CrossEntropy(h, b.Y, nil)
				loss.Backward()
				return h, loss
			}
			outH, lossH := run(host, hostX)
			outD, lossD := run(onDev, b.X)
			what := fmt.Sprintf("batch %d, %s", batch, k.name)
			agree(t, what+": output", outD, outH, tol.Value)
			agree(t, what+": loss", lossD, lossH, tol.Loss)
			for i := range host {
				for j, p := range host[i].Params() {
					agree(t, fmt.Sprintf("%s: layer %d parameter %d's gradient", what, i, j), onDev[i].Params()[j].Grad(), p.Grad(), tol.Value)
				}
			}
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
}
