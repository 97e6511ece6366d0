package tune

// MultiTensorOptim makes gnnlib/cuda's optimiser steps for gnnlib/nn
// (Adam and AdamW through AdamSteps, SGD through SGDSteps) update every
// float32 parameter of a step in one launch (adam_multi, sgd_multi: up
// to 32 tensors a launch, their pointers and sizes passed as the
// kernel's arguments), instead of one launch a parameter (adam_wd,
// sgd_step): 6 launches fewer an epoch for a 3-layer GCN, 12 for a
// 3-layer GATv2 (TestMultiTensorOptimLaunches). Each value gets the same
// float32 arithmetic as in the per-parameter kernels (one inline
// function; TestMultiTensorOptimEmulated checks the launch's layout on
// the CPU, TestMultiTensorOptim the bits on a device). Off by default:
// it has not run on a device yet.
var MultiTensorOptim = false
