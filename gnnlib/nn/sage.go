package nn

import (
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// SAGEAggregateFirst makes SAGEConv's mean term mean(x)·WNeigh instead of
// mean(x·WNeigh) where that does less work (sageAggregateFirst): always
// on a sampled block whose destinations are a fraction of its sources
// (the product then runs over the destinations only), and on a square
// graph when the layer widens (fewer input than output features), so
// that the aggregation runs at the narrower width. The two orders differ
// by rounding only. Sparse features keep the product first (a sparse-dense
// product, then a dense aggregation). On by default.
var SAGEAggregateFirst = true

// SAGEFreeSums makes SAGEConv.Forward on a device give back the device
// memory of its three terms (the mean term's product, that plus the bias,
// and the roots' product) as soon as it has added them, instead of when
// the garbage collector finalises them: the backward pass of an addition
// reads neither operand, and no one else sees them. In the products-sized
// sampled step (gnnlib/cuda's BenchmarkSampledStepHost: 3 layers, hidden
// 256, fan-outs 15, 10, 5, batch 1024) that is three 170k×256 float32
// matrices of the first layer, 0.52 GB a step, which otherwise stay
// allocated until a collection finalises them. What that does to the
// allocator's peak is not measured yet: on the recording driver (no
// kernel time, the 2-core dev machine) 40 steps in a row peaked anywhere
// from 4.9 to 14 GB with it and from 6.9 to 13.4 GB without, set by when
// the collections came, which lag a host that runs that far ahead. The
// values are the same (TestSAGEFreeSums on the Fake device, which
// poisons freed memory). Off by default until a device run has passed
// it.
var SAGEFreeSums = false

// sageAggregateFirst reports whether the mean term of a SAGEConv from in
// to out features on g costs fewer multiply-adds aggregated first: ne·in
// for the mean plus ndst·in·out for the product, against nsrc·in·out for
// the product over every source plus ne·out for the mean.
func sageAggregateFirst(g *graph.Graph, in, out int) bool {
	ne, ndst, nsrc := int64(g.NumEdges()), int64(g.NumNodes()), int64(g.NumSrc())
	i, o := int64(in), int64(out)
	return ne*i+ndst*i*o < ne*o+nsrc*i*o
}

// meanNeigh is SAGEConv's mean term, in the order SAGEAggregateFirst
// picks.
func (c *SAGEConv) meanNeigh(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	s := c.WNeigh.Shape()
	if SAGEAggregateFirst && !x.IsSparse() && sageAggregateFirst(g, s[0], s[1]) {
		return MeanAggregate(g, x).MatMul(c.WNeigh)
	}
	return MeanAggregate(g, x.MatMul(c.WNeigh))
}

// blockRoots returns the rows of x that are g's destinations: x itself on
// a square graph, the first NumNodes rows on a sampled block, taken by
// Narrow (a copy on a device, with no index list to upload: IndexSelect's
// upload from pageable memory waited for the stream, twice a layer with
// its backward pass), or by IndexSelect for sparse x.
func blockRoots(g *graph.Graph, x *tensor.Tensor) *tensor.Tensor {
	switch {
	case g.IsSquare():
		return x
	case x.IsSparse() || !sageNarrowRoots:
		return x.IndexSelect(seq(g.NumNodes()))
	}
	return x.Narrow(0, 0, g.NumNodes())
}

// sageNarrowRoots switches blockRoots' Narrow (off: IndexSelect, as
// before). On since 2026-12-06 (TestSAGEAggregateFirst and the devicetest
// suite run it on the CPU and the Fake; gnnlib/cuda's device-sampled
// tests, TestDeviceSAGEAggregateFirst and TestDeviceSampledSAGEStep among
// them, passed with it on an H100 in the final run that day).
var sageNarrowRoots = true
