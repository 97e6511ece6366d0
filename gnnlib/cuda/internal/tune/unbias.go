package tune

// UnbiasActOnePass makes gnnlib/cuda's UnbiasAct for gnnlib/nn (the
// GATv2 layer's backward pass rebuilding its attention output from the
// activation the next layer kept, nn.GATv2OutOps) write the rebuilt
// output from the activation in one pass over float32 storage
// (unbias_act_to), instead of copying the activation and turning the
// copy back in place (a device-to-device copy and unbias_act): the same
// values, one N×F read and write less per hidden GATv2 layer and epoch.
// On by default; false runs the copy (gnnbench -nngatv2-ab compares the
// two).
var UnbiasActOnePass = true
