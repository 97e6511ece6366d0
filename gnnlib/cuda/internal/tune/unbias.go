package tune

// UnbiasActOnePass makes gnnlib/cuda's UnbiasAct for gnnlib/nn (the
// GATv2 layer's backward pass rebuilding its attention output from the
// activation the next layer kept, nn.GATv2OutOps) write the rebuilt
// output from the activation in one pass over float32 storage
// (unbias_act_to), instead of copying the activation and turning the
// copy back in place (a device-to-device copy and unbias_act): the same
// values, one N×F read and write less per hidden GATv2 layer and epoch.
// On an H100 (2026-12-06, TestUnbiasActOnePass passed: the same bits) the
// arxiv-sized nn GATv2 epoch with nn.RebuildInActBackward off took 15.90
// ms with it against 16.21 without (gnnbench -nngatv2-ab, one run), and
// TestNNGATv2EpochKernelTimes timed unbias_act_to at 0.353 ms an epoch
// against 0.588 for the copies and unbias_act. On by default; false runs
// the copy.
var UnbiasActOnePass = true
