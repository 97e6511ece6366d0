// Package prof measures gnnlib code honestly: wall times with warm-up and
// repeats, op-level profiles of a training step, memory over time, speedup
// against threads with an Amdahl fit, and the machine's bandwidth and
// compute ceilings for rooflines.
//
// It knows nothing of notebooks: its reports have String and HTML methods,
// and package viz turns them into plots and display bundles.
//
// # Timing
//
// Time runs a function Warmup times untimed and Repeats times timed and
// returns Stats (min, median, max, mean). Quote the median. For work on a
// GPU set Options.Device (tensor.Device("cuda")): a device that records
// events (an EventTimer, as gnnlib/cuda's is) times each run on its own
// clock and Stats.DeviceClock says so; a device that only synchronises
// (a Synchronizer) is waited for before the host clock stops.
//
// # Op profiles
//
// StartOps installs the tensor package's op hook; Stop returns an
// OpReport with one row per op, pass (forward or backward) and storage
// format (float32, or the 16-bit format of tensor.Autocast, named in the
// row: "MatMul [bfloat16]", its bytes counted at two a value): calls,
// self time, estimated bytes moved and FLOPs, and the share of the wall
// time between StartOps and Stop. Ops called inside another op (the
// MatMuls inside a gradient function) are rows of their own, in the pass
// of the op that called them, and their time is taken out of the caller's,
// so the rows add up to the traced time. Coverage tells how much of the
// wall time the ops explain; in a step made of compiled tensor ops it is
// well above 90%.
//
// # Memory
//
// TrackMemory samples the Go heap (runtime/metrics
// "/memory/classes/heap/objects:bytes") in the background, and the device
// memory through DeviceMemory, which asks the backends registered with
// gnnlib/tensor (tensor.DeviceMemory; gnnlib/cuda reports the bytes its
// allocators hold while a device is open); Mark names phases (forward,
// backward, step); Stop returns a MemoryProfile with the samples, the
// marks, the baseline and the peaks, which viz.Memory draws as a host and
// a device curve.
//
// # Parallelism
//
// tensor.SetThreads is the one control of gnnlib's CPU parallelism (tensor
// ops, graph kernels, layers and quantized kernels alike).
// MeasureSpeedup times a function at several thread counts and FitAmdahl
// fits the parallel fraction p by least squares on 1/S = (1−p) + p/n;
// Limit is the speedup no number of threads can beat, 1/(1−p).
//
// # Rooflines
//
// StreamCopy and MatMulProbe measure the machine's copy bandwidth and
// matrix-product rate; Attained places an op row against them.
//
// BUG(gnnlab): DeviceMemory counts the bytes gnnlib/cuda's caching
// allocator hands out (rounded to size classes), not what the driver
// reserved; dead device tensors count until they are freed. The op profile
// times device ops as the host sees them (kernel launches are
// asynchronous), so on a GPU its rows show launch cost unless the step
// synchronises; use Time with Options.Device for device time.
//
// BUG(gnnlab): The op profile assumes ops run from one goroutine at a time
// (the op hook sees no goroutine id); ops run concurrently from several
// goroutines would be nested wrongly.
//
// BUG(gnnlab): Byte and FLOP counts are estimates from shapes: every
// operand read once, graph aggregation ops (whose edges the tensor package
// does not see) counted as one FLOP an output element.
package prof
