// Package devicetest is the test suite that every gnnlib device backend
// runs: the cases of the ops and layers that gnnlib/tensor and gnnlib/nn
// dispatch to a tensor.Backend and its backend.GraphOps, checks that compare a
// device with the CPU on them and on training steps, and Fake, a device
// whose memory is host memory and whose ops are the CPU's own.
//
// gnnlib/nn's tests run the suite on a Fake, which checks the dispatch
// (which ops reach a backend, with which shapes, how backward passes and
// optimisers are wired) on any machine; gnnlib/cuda's tests run it on the
// GPU, which checks the kernels:
//
//	func TestDevice(t *testing.T) {
//		devicetest.Run(t, &devicetest.Fake{}, devicetest.Tolerance{Op: 1e-5, Loss: 1e-5, Value: 1e-5})
//	}
//
// A new backend op gets its case in OpCases, so that every backend checks
// it; an element-wise map (backend.MapOp) gets its case, and the Fake's
// version of it, from the op table in gnnlib/tensor/backend
// (maps_gen.go). The package is for tests: it imports testing, and notebooks do not
// preload it.
package devicetest
