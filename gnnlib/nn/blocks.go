package nn

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Mini-batch forward passes over sampled blocks (data.NeighborLoader,
// graph.SampleNeighbors): layer i of a model runs on blocks[i], whose
// first rows are its destinations, so the output has one row per seed of
// the batch. The layers' maths is that of Forward; GCNConv normalises a
// block as DGL does and the attention layers add the block's self-loops
// (see graph.Graph.GCNNorm and AddSelfLoops).

// checkBlocks panics unless there is one block per layer and the features
// have one row per source of the first block.
func checkBlocks(model string, blocks []*graph.Graph, layers int, x *tensor.Tensor) {
	if len(blocks) != layers {
		panic(fmt.Sprintf("nn: %s.ForwardBlocks: %d blocks for %d layers (sample with one fan-out per layer)", model, len(blocks), layers))
	}
	for i := 1; i < len(blocks); i++ {
		if blocks[i].NumSrc() != blocks[i-1].NumNodes() {
			panic(fmt.Sprintf("nn: %s.ForwardBlocks: block %d has %d sources but block %d has %d destinations", model, i, blocks[i].NumSrc(), i-1, blocks[i-1].NumNodes()))
		}
	}
	if x.Size(0) != blocks[0].NumSrc() {
		panic(&tensor.ShapeError{Op: model + ".ForwardBlocks", A: x.Shape(), B: []int{blocks[0].NumSrc()}, Msg: "needs one feature row per source of the first block"})
	}
}

// ForwardBlocks returns the logits of the destinations of blocks[1] (the
// batch's seeds), conv1 running on blocks[0] and conv2 on blocks[1]; x
// holds the features of blocks[0]'s sources.
func (m *GCN) ForwardBlocks(blocks []*graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	checkBlocks("GCN", blocks, 2, x)
	h := m.Conv1.Forward(blocks[0], m.drop(x, m.Dropout)).ReLU()
	return m.Conv2.Forward(blocks[1], m.drop(h, m.Dropout))
}

// ForwardBlocks is GCN.ForwardBlocks for GraphSAGE.
func (m *GraphSAGE) ForwardBlocks(blocks []*graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	checkBlocks("GraphSAGE", blocks, 2, x)
	h := m.Conv1.Forward(blocks[0], m.drop(x, m.Dropout)).ReLU()
	return m.Conv2.Forward(blocks[1], m.drop(h, m.Dropout))
}

// ForwardBlocks is GCN.ForwardBlocks for GAT.
func (m *GAT) ForwardBlocks(blocks []*graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	checkBlocks("GAT", blocks, 2, x)
	h := m.Conv1.Forward(blocks[0], m.drop(x, m.Dropout)).ELU(1)
	return m.Conv2.Forward(blocks[1], m.drop(h, m.Dropout))
}
