package devicetest

import (
	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
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
