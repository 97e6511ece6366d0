package tune

// PostFillCopy makes gnnlib/cuda's Tensor.Fill (a memset on the stream)
// and its backend's Copy (a device-to-device copy) return as soon as they
// are queued for the device goroutine, as AsyncLaunch does for kernel
// launches, instead of after the driver call: an error comes back from
// the next call that waits. The device runs the same operations in the
// same order. In the products-sized sampled GraphSAGE step they were 12
// of its 13 synchronous calls to the device goroutine with AsyncLaunch
// on (ten fills: the zeroed outputs of split-K products, of the bias
// gradients' column sums and of the loss; two copies: gradients cloned
// to be summed), each a locked-thread handoff that also waited for every
// launch queued before it; the 13th is the loss's read-back
// (gnnlib/cuda's BenchmarkSampledStepHost on the recording driver). Off by default until the
// device suite has run with it on; TestPostFillCopy checks the order on
// the recording driver.
var PostFillCopy = false
