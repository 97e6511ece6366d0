// ops.cu holds the device kernels of the tensor and nn ops beyond what a
// GCN/GAT training epoch needs (row softmax, gathers and scatters, the
// other losses and optimisers). It is compiled as part of gnn.cu, which
// includes it, into the one PTX module.
