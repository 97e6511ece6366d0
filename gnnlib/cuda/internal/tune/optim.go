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
// the CPU, TestMultiTensorOptim the bits on a device). On by default:
// TestMultiTensorOptim passed on an H100 (2026-12-06 22:03), where the
// arxiv-sized nn epochs took the same time with it as without (1.00x,
// gnnbench's nnbf16 part), with 5 to 11 launches fewer.
var MultiTensorOptim = true
