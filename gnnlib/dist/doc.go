// Package dist trains gnnlib models on several devices or processes: the
// collective calls that keep replicas of a model equal (all-reduce,
// broadcast, barrier) behind one Communicator interface, data-parallel
// training over the neighbour-sampling loader, and graph partitioning with
// halo exchange for full-batch training of graphs whose features do not
// fit one device.
//
// # Communicators
//
// A Communicator is one rank of a group. Three implementations share the
// interface:
//
//   - NewLocal and Spawn: the ranks of one process, one goroutine each,
//     all-reducing over their own buffers in a ring (a reduce-scatter and
//     an all-gather of n-1 steps each). Each chunk is summed in a fixed
//     rank order and then copied, so all ranks get the same bits and
//     results are reproducible run after run.
//   - ConnectTCP: ranks in several processes (or hosts) in a ring of TCP
//     connections, after a bootstrap in which rank 0 listens and the
//     others connect to it, retrying a refused connection until a timeout;
//     every message carries its call's kind and length, so ranks that
//     disagree fail with ErrMismatch instead of exchanging garbage, and a
//     rank that waits too long fails with ErrTimeout.
//   - NewNCCLGroup and ConnectNCCL (binaries built with -tags cuda): NCCL,
//     the collective library of every multi-GPU framework, on each GPU's
//     own stream. NCCL is found at run time (only the path in GNNLAB_NCCL
//     when it is set; otherwise the libnccl.so.2 of PyTorch's wheels in the
//     Python environments, then a system libnccl) and loaded with dlopen,
//     so the binary starts without it; the calls fail with an error
//     wrapping ErrNoNCCL that lists what was tried. ConnectNCCL sends rank 0's NCCL unique id to the other
//     processes through the same TCP bootstrap (ExchangeID). The NCCL
//     communicators are TensorCommunicators: they reduce device tensors
//     in place.
//
// # Data parallelism
//
// DataParallel wraps a rank's replica of a model: NewDataParallel
// broadcasts rank 0's parameters, NewLoader gives the rank its share of
// the seed nodes of a data.NeighborLoader (every Size()-th seed, so that
// a rank's batch is its part of the global batch) and Step runs the
// forward and backward pass on the rank's batch, averages the gradients
// over the ranks bucket by bucket (Bucketer: 25 MiB buckets as PyTorch
// DDP's, last parameters first) and takes the optimiser's step. With
// equal shares this is the step one rank takes on the whole batch. In a
// notebook:
//
//	err := dist.Spawn(2, func(c dist.Communicator) error {
//		m := nn.NewGraphSAGE(in, 64, classes, "mean")
//		dp, err := dist.NewDataParallel(m, c)
//		if err != nil {
//			return err
//		}
//		opt := nn.NewAdam(m.Params(), 0.01, 0)
//		ld, err := dp.NewLoader(g, x, y, train, data.NeighborLoaderOptions{BatchSize: 1024, Fanouts: []int{10, 5}})
//		if err != nil {
//			return err
//		}
//		it := ld.Iter()
//		defer it.Close()
//		for it.Next() {
//			b := it.Batch()
//			if _, err := dp.Step(opt, func() *tensor.Tensor {
//				return nn.CrossEntropy(m.ForwardBlocks(b.Graphs(), b.X), b.Y, nil)
//			}); err != nil {
//				return err
//			}
//		}
//		return it.Err()
//	})
//
// On GPUs, each rank opens its device, moves the model there (nn.To)
// before NewDataParallel and each batch's X, and uses the communicators of
// NewNCCLGroup (one process) or ConnectNCCL (a process per GPU) with its
// own goroutine per rank.
//
// # Partitioned full-batch training
//
// RangePartition (contiguous ranges) and BFSPartition (greedy
// breadth-first growth that keeps neighbours together) split the nodes
// into parts; Partition.Shard gives a rank its part: the owned nodes, the
// halo (in-neighbours that other parts own), the edges into the owned
// nodes in local numbering (Graph, and GCN with the whole graph's GCN
// normalisation) and the point-to-point plan of the exchange (Send,
// Recv). Shard.Exchange extends the owned rows of a layer's input by the
// halo rows received from their owners, so that a layer over the shard
// computes the rows of the unpartitioned layer; Shard.ExchangeGrad sends
// the gradient of the halo rows back to their owners. A HaloTape
// (Shard.Tape) records the exchanges of a forward pass and runs the
// backward pass across them, so that full-batch training over the parts
// takes the steps training on the whole graph takes (the package's tests
// check both for a two-layer GCN).
//
// BUG(dist): the all-reduce of the gradients starts after the backward
// pass, not bucket by bucket as the backward pass finishes each bucket:
// gnnlib/tensor's autograd has no hook called when a leaf's gradient is
// complete.
//
// BUG(dist): Shard.Exchange is one all-reduce of every part's boundary rows
// (zeros but for the rank's own), so every rank receives every boundary
// row, not only its halo; none of the communicators has point-to-point
// sends for the Send and Recv plan yet. The exchange goes through host
// memory (device rows are copied to the host and back), and a HaloTape's
// backward pass runs segment by segment, not as one pass.
//
// BUG(dist): the NCCL communicators have not run on a GPU yet (they build
// and vet here; the cuda-tagged tests TestNCCLAllReduceGPUs and
// TestDataParallelGPUs need two GPUs). gnnlib/cuda creates its own CUDA
// context per device rather than the device's primary context; NCCL,
// which uses the CUDA runtime, takes the context current on the calling
// thread (Run calls it on the device's thread), but its helper threads
// select devices through the runtime, that is through primary contexts.
// NCCL does not check that ranks make matching calls: mismatched calls
// hang or exchange wrong data, where the TCP and in-process communicators
// fail with ErrMismatch.
package dist
