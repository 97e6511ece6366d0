package dist

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/data"
	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// DataParallel trains one replica of a model per rank, as PyTorch's
// DistributedDataParallel does: the replicas start from rank 0's
// parameters, each rank runs the forward and backward passes on its own
// share of every global mini-batch, the gradients are averaged over the
// ranks (bucket by bucket, see Bucketer) and every rank's optimiser then
// takes the same step, so the replicas stay equal. With equal shares the
// averaged gradient is the gradient of the mean loss over the global
// batch, which is what one rank training on the whole batch computes.
type DataParallel struct {
	// Module is the rank's replica.
	Module nn.Module
	// Comm is the rank's communicator.
	Comm  Communicator
	grads *Bucketer
}

// NewDataParallel wraps the rank's replica of a model (built the same way
// on every rank, and moved to the rank's device if it has one) and
// broadcasts rank 0's parameters to the other ranks. Gradients go in
// buckets of DefaultBucketBytes.
func NewDataParallel(model nn.Module, comm Communicator) (*DataParallel, error) {
	return NewDataParallelBuckets(model, comm, 0)
}

// NewDataParallelBuckets is NewDataParallel with gradient buckets of
// bucketBytes bytes (0: DefaultBucketBytes).
func NewDataParallelBuckets(model nn.Module, comm Communicator, bucketBytes int) (*DataParallel, error) {
	b, err := NewBucketer(model.Params(), comm, bucketBytes)
	if err != nil {
		return nil, err
	}
	if err := b.Broadcast(0); err != nil {
		return nil, fmt.Errorf("dist: DataParallel: broadcast the parameters from rank 0: %w", err)
	}
	return &DataParallel{Module: model, Comm: comm, grads: b}, nil
}

// Rank is the communicator's rank.
func (d *DataParallel) Rank() int { return d.Comm.Rank() }

// Size is the number of ranks.
func (d *DataParallel) Size() int { return d.Comm.Size() }

// Buckets returns the gradient buckets as indices into Module.Params().
func (d *DataParallel) Buckets() [][]int { return d.grads.Buckets() }

// Shard returns the rank's share of seeds: every Size()-th seed starting at
// position Rank(), cut to the same length on every rank (the last
// len(seeds) % Size() seeds are left out, as DDP's DistributedSampler with
// drop_last does), so that all ranks run the same number of steps.
// Batches of b consecutive seeds of a rank's share then hold, rank by
// rank, the seeds of global batches of b·Size() consecutive seeds.
func (d *DataParallel) Shard(seeds []int) []int {
	return ShardSeeds(seeds, d.Rank(), d.Size())
}

// ShardSeeds is DataParallel.Shard for a given rank and size.
func ShardSeeds(seeds []int, rank, size int) []int {
	per := len(seeds) / size
	out := make([]int, per)
	for i := range out {
		out[i] = seeds[i*size+rank]
	}
	return out
}

// NewLoader returns the rank's neighbour-sampling loader: o.BatchSize is
// the global batch, which must be a multiple of Size(); the rank's loader
// takes batches of o.BatchSize/Size() of the rank's Shard of the seeds.
// Without shuffling, batch i of every rank is its part of global batch i.
// With o.Shuffle each rank shuffles its own share, seeded with o.Seed plus
// the rank, so that the ranks' samples differ.
func (d *DataParallel) NewLoader(g *graph.Graph, x *tensor.Tensor, y []int, seeds []int, o data.NeighborLoaderOptions) (*data.NeighborLoader, error) {
	if o.BatchSize%d.Size() != 0 {
		return nil, fmt.Errorf("dist: DataParallel.NewLoader: global batch %d is not a multiple of the %d ranks: %w", o.BatchSize, d.Size(), data.ErrLoader)
	}
	o.BatchSize /= d.Size()
	o.Seed += uint64(d.Rank())
	return data.NewNeighborLoader(g, x, y, d.Shard(seeds), o)
}

// SyncGradients replaces every parameter's gradient by its mean over the
// ranks; call it between the backward pass and the optimiser's step.
func (d *DataParallel) SyncGradients() error {
	return d.grads.AllReduce(Mean)
}

// Step is one training step: it clears the gradients with opt.ZeroGrad,
// calls loss for the rank's loss on its batch (the forward pass), runs
// the backward pass, averages the gradients over the ranks and calls
// opt.Step. It returns the loss averaged over the ranks. The ranks of one
// process run their steps at the same time (gnnlib/tensor's switch of
// gradient recording is per goroutine).
func (d *DataParallel) Step(opt nn.Optimizer, loss func() *tensor.Tensor) (float32, error) {
	opt.ZeroGrad()
	l := loss()
	l.Backward()
	if err := d.SyncGradients(); err != nil {
		return 0, err
	}
	opt.Step()
	v := []float32{l.Item()}
	if err := d.Comm.AllReduce(v, Mean); err != nil {
		return 0, err
	}
	return v[0], nil
}
