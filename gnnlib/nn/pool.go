package nn

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/graph/kernels"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	"github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// Global pooling for graph classification: x holds the node rows of a
// batch of graphs (graph.Batch, data.GraphDataset.Batch), batch[v] the
// graph of node v, and the result one row per graph, [numGraphs, F]. They
// wrap graph.GlobalAddPool, GlobalMeanPool and GlobalMaxPool as autograd
// ops, as PyG's global_add_pool, global_mean_pool and global_max_pool.
// They run on the CPU only.

// GlobalAddPool sums the node rows of each graph.
func GlobalAddPool(x *tensor.Tensor, batch []int, numGraphs int) *tensor.Tensor {
	return globalPool("GlobalAddPool", x, batch, numGraphs, false)
}

// GlobalMeanPool averages the node rows of each graph (zero for a graph
// without nodes).
func GlobalMeanPool(x *tensor.Tensor, batch []int, numGraphs int) *tensor.Tensor {
	return globalPool("GlobalMeanPool", x, batch, numGraphs, true)
}

func checkPool(op string, x *tensor.Tensor, batch []int, numGraphs int) int {
	if x.IsOnDevice() {
		notOnDevice(op, x)
	}
	f := checkNodes(op, x, len(batch))
	for v, b := range batch {
		if b < 0 || b >= numGraphs {
			panic(fmt.Errorf("nn: %s: node %d in graph %d of %d: %w", op, v, b, numGraphs, tensor.ErrIndex))
		}
	}
	return f
}

func globalPool(op string, x *tensor.Tensor, batch []int, numGraphs int, mean bool) *tensor.Tensor {
	start := backend.OpStart()
	f := checkPool(op, x, batch, numGraphs)
	out := make([]float32, numGraphs*f)
	if mean {
		graph.GlobalMeanPool(out, x.Data(), f, batch, numGraphs)
	} else {
		graph.GlobalAddPool(out, x.Data(), f, batch, numGraphs)
	}
	return backend.NewOpSince(start, op, tensor.Wrap(out, numGraphs, f), []*tensor.Tensor{x}, func(grad *tensor.Tensor) []*tensor.Tensor {
		var scale []float32
		if mean {
			scale = make([]float32, numGraphs)
			for _, b := range batch {
				scale[b]++
			}
			for b, c := range scale {
				if c > 0 {
					scale[b] = 1 / c
				}
			}
		}
		g := grad.Data()
		dx := make([]float32, len(batch)*f)
		for v, b := range batch {
			row := dx[v*f : v*f+f]
			copy(row, g[b*f:b*f+f])
			if mean {
				for j := range row {
					row[j] *= scale[b]
				}
			}
		}
		return []*tensor.Tensor{tensor.Wrap(dx, len(batch), f)}
	})
}

// GlobalMaxPool takes the element-wise maximum of the node rows of each
// graph (zero for a graph without nodes); the gradient flows to the node
// that won each element.
func GlobalMaxPool(x *tensor.Tensor, batch []int, numGraphs int) *tensor.Tensor {
	start := backend.OpStart()
	f := checkPool("GlobalMaxPool", x, batch, numGraphs)
	out := make([]float32, numGraphs*f)
	arg := make([]int, numGraphs*f)
	graph.GlobalMaxPool(out, x.Data(), f, batch, numGraphs, arg)
	return backend.NewOpSince(start, "GlobalMaxPool", tensor.Wrap(out, numGraphs, f), []*tensor.Tensor{x}, func(grad *tensor.Tensor) []*tensor.Tensor {
		dx := make([]float32, len(batch)*f)
		kernels.ScatterArg(dx, grad.Data(), f, arg)
		return []*tensor.Tensor{tensor.Wrap(dx, len(batch), f)}
	})
}
