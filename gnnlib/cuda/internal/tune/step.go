package tune

// PostFillCopy makes gnnlib/cuda's backend Copy (a device-to-device
// copy) and, with AsyncLaunch off, its Tensor.Fill (a memset on the
// stream, which AsyncLaunch posts anyway) return as soon as they are
// queued for the device goroutine, as AsyncLaunch does for kernel
// launches, instead of after the driver call: an error comes back from
// the next call that waits. The device runs the same operations in the
// same order. In the products-sized sampled GraphSAGE step with
// AsyncLaunch on, the two copies (gradients cloned to be summed, where a
// block's input feeds both the mean and the roots) are 2 of its 3
// synchronous calls to the device goroutine besides the allocator's
// misses, each a handoff that also waits for every launch queued before
// it; the 3rd is the loss's read-back (gnnlib/cuda's
// BenchmarkSampledStepHost on the recording driver). On an H200
// (2026-12-07, gnnbench -only sampled -products, launched kernel by
// kernel with AsyncLaunch) it took that step from 3.870 to 3.269 ms,
// with the same losses. On by default: the whole device suite passed with
// it on, on an H100 (2026-12-07, 07:12); TestPostFillCopy checks the
// order and the waits on the recording driver.
var PostFillCopy = true
