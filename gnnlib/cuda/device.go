package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/interrupt"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// Device is one GPU with its context, stream, caching allocator and the
// embedded kernels. All device work runs on one goroutine locked to its OS
// thread, because a CUDA context is bound to a thread: the methods of Device
// and of the values it creates are safe for concurrent use and queue their
// work on that goroutine. Kernel launches return before the kernel ran;
// copies to the host and Synchronize wait.
type Device struct {
	work chan func()
	done chan struct{}
	drv  driver
	desc string
	nsm  int
	// smem is the most shared memory a block may have (the driver's
	// opt-in limit), 0 when the driver does not say (sharedLimiter).
	smem int
	// memTotal is the GPU's memory as the driver gave it at open, 0 if
	// it did not.
	memTotal int64
	// be is the Device as a tensor.Backend (Backend).
	be *backend

	mu     sync.Mutex // guards closed
	closed bool

	pool pool
	// graphs holds the device copies of host graphs that tensor ops used,
	// freed when the host graph is collected.
	graphs tbackend.GraphCache[graphMode, *Graph]
	// labels holds CrossEntropy's device labels per label and row slice.
	labels sliceCache[*Labels]
	// uploads counts copies from host memory (upload), for tests;
	// launches counts kernel launches, for Mapping and gnnbench.
	uploads, launches atomic.Int64
	// graphList lists the graphs on the device, for Mapping.
	graphList graphList
	// rec is the launch segment being recorded and replay runs segments
	// (GraphReplay, replay.go).
	rec    recorder
	replay replayer
	// chooser is AutoReplay's choice (autoreplay.go); clock, when set,
	// its clock (tests).
	chooser replayChooser
	clock   func() time.Time
	// asyncErr is the first error of work posted without waiting (post),
	// returned by the next call that waits; device goroutine only.
	asyncErr error
}

// Open starts the device with the given ordinal (0 for the first GPU). In a
// binary built without the cuda tag it returns ErrNoCUDA; with no usable GPU
// an error wrapping ErrNoDevice that says what the driver reported.
func Open(ordinal int) (*Device, error) {
	d := &Device{work: make(chan func(), 256), done: make(chan struct{})}
	d.be = &backend{Device: d}
	d.graphs.Release = (*Graph).Free
	d.labels.release = func(l *Labels) { l.buf.release() }
	errc := make(chan error, 1)
	go d.serve(ordinal, errc)
	if err := <-errc; err != nil {
		return nil, err
	}
	d.desc, d.nsm = d.drv.name(), d.drv.sms()
	if lim, ok := d.drv.(sharedLimiter); ok {
		d.smem = lim.sharedMax()
	}
	d.do(func(drv driver) error {
		if _, total, err := drv.memInfo(); err == nil {
			d.memTotal = total
		}
		return nil
	})
	openDevs.Lock()
	openDevs.m[d] = true
	openDevs.Unlock()
	return d, nil
}

// openDevs lists the open devices, for DeviceMemory.
var openDevs = struct {
	sync.Mutex
	m map[*Device]bool
}{m: map[*Device]bool{}}

// DeviceMemory returns the bytes in use in the caching allocators of all
// open devices (ErrNoDevice when none is open). It reads a counter the
// allocator keeps, without waiting for queued device work, so that
// gnnlib/prof's memory tracker can sample it often: cuda's init registers
// it as the Driver's InUse (backend.Register), which prof.DeviceMemory asks.
func DeviceMemory() (uint64, error) {
	openDevs.Lock()
	defer openDevs.Unlock()
	if len(openDevs.m) == 0 {
		return 0, ErrNoDevice
	}
	var n int64
	for d := range openDevs.m {
		n += d.pool.live.Load()
	}
	return uint64(max(n, 0)), nil
}

// StartTimer records a timing event on the device's stream; StopTimer
// records a second one, waits for it and returns the device time between
// the two: the time of the kernels queued in between, without the host's
// launch overhead before the first of them. gnnlib/prof's Time uses them
// for work on the device.
func (d *Device) StartTimer() error {
	return d.do(func(drv driver) error { return drv.timeStart() })
}

// StopTimer: see StartTimer.
func (d *Device) StopTimer() (time.Duration, error) {
	var ms float64
	err := d.do(func(drv driver) error {
		var err error
		ms, err = drv.timeStop()
		return err
	})
	return time.Duration(ms * float64(time.Millisecond)), err
}

// serve owns the OS thread for the device's whole life.
func (d *Device) serve(ordinal int, errc chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	drv, err := openDriver(ordinal)
	if err != nil {
		errc <- err
		return
	}
	d.drv = drv
	d.pool.init(drv)
	errc <- nil
	d.runWork()
	d.pool.release()
	drv.close()
	close(d.done)
}

// runWork runs the device goroutine's work until d.work is closed.
func (d *Device) runWork() {
	for {
		fn, ok := d.next()
		if !ok {
			return
		}
		fn()
	}
}

// next receives the device goroutine's next work, polling d.work for up
// to tune.DeviceSpin before it parks (spinning), so that work queued
// within that time of the last needs no wake-up of the locked thread.
func (d *Device) next() (func(), bool) {
	if spinning() {
		t0 := time.Now()
		for i := 1; ; i++ {
			select {
			case fn, ok := <-d.work:
				return fn, ok
			default:
			}
			if i%64 == 0 && time.Since(t0) > tune.DeviceSpin {
				break
			}
		}
	}
	fn, ok := <-d.work
	return fn, ok
}

// spinning reports whether the device goroutine and callers waiting for
// it poll before parking (tune.DeviceSpin): never with one P, where the
// poller would hold the only one.
func spinning() bool {
	return tune.DeviceSpin > 0 && runtime.GOMAXPROCS(0) > 1
}

// do runs fn on the device goroutine and returns its error, or the first
// error of work posted since the last call that waited.
func (d *Device) do(fn func(drv driver) error) error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return ErrClosed
	}
	d.mu.Unlock()
	var err error
	var done atomic.Bool
	ch := make(chan struct{})
	d.send(func() {
		err = fn(d.drv)
		if d.asyncErr != nil {
			err = errors.Join(d.asyncErr, err)
			d.asyncErr = nil
		}
		close(ch)
		done.Store(true)
	})
	if spinning() {
		t0 := time.Now()
		for i := 1; !done.Load(); i++ {
			if i%64 == 0 && time.Since(t0) > tune.DeviceSpin {
				break
			}
		}
	}
	<-ch
	return err
}

// post queues fn on the device goroutine without waiting for it: the
// caller goes on at once, and an error of fn is returned by the next call
// that waits (do: a copy to the host, Synchronize, an allocation from the
// driver). Work runs in the order it was queued, posted or not.
func (d *Device) post(fn func(drv driver) error) error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return ErrClosed
	}
	d.mu.Unlock()
	d.send(func() {
		if err := fn(d.drv); err != nil && d.asyncErr == nil {
			d.asyncErr = err
		}
	})
	return nil
}

// Close waits for the device's queued work, frees its memory and destroys
// its context. Values created on the device must not be used afterwards.
func (d *Device) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	d.mu.Unlock()
	openDevs.Lock()
	delete(openDevs.m, d)
	openDevs.Unlock()
	// The segment still recorded (GraphReplay) runs before the device
	// closes, and the graphs go with it.
	d.send(func() { d.replay.free(d.drv) })
	close(d.work)
	<-d.done
	return nil
}

// String names the device, e.g. "NVIDIA H200 (sm_90, 132 SMs)".
func (d *Device) String() string { return d.desc }

// Synchronize waits until all queued device work has finished and reports
// the first asynchronous error.
// An interrupt (gnnlib/interrupt) ends the wait with an *interrupt.Error;
// the device goes on with its queue, and the next call waits behind it.
func (d *Device) Synchronize() error {
	errc := make(chan error, 1)
	go func() { errc <- d.do(func(drv driver) error { return drv.sync() }) }()
	select {
	case err := <-errc:
		d.waited()
		return err
	case <-interrupt.Context().Done():
		select {
		case err := <-errc:
			return err
		default:
			return &interrupt.Error{Op: "cuda: Synchronize"}
		}
	}
}

// MemStats describes the device memory of the caching allocator.
type MemStats struct {
	// InUse is the bytes held by live buffers (rounded to size classes).
	InUse int64
	// Peak is the largest InUse since the Device opened or ResetPeak.
	Peak int64
	// Reserved is the bytes taken from the driver, cached blocks included.
	Reserved int64
	// Free and Total are the driver's view of the whole GPU.
	Free, Total int64
}

// MemStats returns the allocator's counters and the driver's free memory.
func (d *Device) MemStats() (MemStats, error) {
	var s MemStats
	err := d.do(func(drv driver) error {
		s.InUse, s.Peak, s.Reserved = d.pool.stats()
		var err error
		s.Free, s.Total, err = drv.memInfo()
		return err
	})
	return s, err
}

// ResetPeak sets the peak counter to the bytes in use now.
func (d *Device) ResetPeak() {
	d.do(func(driver) error {
		d.pool.resetPeak()
		return nil
	})
}

// EmptyCache returns the allocator's cached free blocks to the driver.
func (d *Device) EmptyCache() error {
	return d.do(func(driver) error { return d.pool.trim() })
}

// launch queues a kernel with the given grid and block sizes.
func (d *Device) launch(kernel string, grid, block int, args ...any) error {
	return d.launch3(kernel, [3]int{grid, 1, 1}, [3]int{block, 1, 1}, args...)
}

func (d *Device) launch3(kernel string, grid, block [3]int, args ...any) error {
	return d.launchShared(kernel, grid, block, 0, args...)
}

// launchShared is launch3 with shared bytes of dynamic shared memory per
// block (extern __shared__ in the kernel). Above the 48 KB a kernel gets
// without asking, the driver raises the kernel's limit (cuFuncSetAttribute)
// before its first such launch; a size above what the device allows a block
// is refused here, with the kernel and both sizes named.
func (d *Device) launchShared(kernel string, grid, block [3]int, shared int, args ...any) error {
	if shared < 0 {
		return fmt.Errorf("gnnlib/cuda: launch %s: %d bytes of dynamic shared memory", kernel, shared)
	}
	if shared > 0 {
		if lim, ok := d.drv.(sharedLimiter); ok {
			if most := lim.sharedMax(); shared > most {
				return fmt.Errorf("gnnlib/cuda: launch %s: %w: %d bytes of dynamic shared memory asked for, the device allows a block %d (%s)",
					kernel, errSharedMemory, shared, most, d.desc)
			}
		}
	}
	return d.launchSlots(kernel, grid, block, shared, argSlots(kernel, args), tune.AsyncLaunch)
}

// argSlots packs a launch's arguments into the kernel's 8-byte parameter
// slots: device pointers, integers, float32 and bool. Any other type is
// a bug in the caller, and panics naming the kernel.
func argSlots(kernel string, args []any) []uint64 {
	slots := make([]uint64, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case *Tensor:
			if v == nil {
				slots[i] = 0
			} else {
				slots[i] = uint64(v.ptr)
			}
		case *buffer:
			slots[i] = uint64(v.ptr)
		case uintptr:
			slots[i] = uint64(v)
		case int:
			slots[i] = uint64(int64(v))
		case int32:
			slots[i] = uint64(uint32(v))
		case int64:
			slots[i] = uint64(v)
		case uint64:
			slots[i] = v
		case float32:
			slots[i] = uint64(*(*uint32)(unsafe.Pointer(&v)))
		case bool:
			if v {
				slots[i] = 1
			}
		default:
			panic(fmt.Sprintf("gnnlib/cuda: launch %s: argument %d of type %T", kernel, i, a))
		}
	}
	return slots
}

// launchSlots counts and records a launch of packed arguments, or sends
// it to the device goroutine: queued without a wait when post, else
// waiting for the driver call.
func (d *Device) launchSlots(kernel string, grid, block [3]int, shared int, slots []uint64, post bool) error {
	d.launches.Add(1)
	if d.record(graphNode{kernel: kernel, grid: grid, block: block, shared: shared, args: slots}) {
		return nil
	}
	launch := func(drv driver) error { return drv.launch(kernel, grid, block, shared, slots) }
	if post {
		return d.post(launch)
	}
	return d.do(launch)
}

// gridFor returns a grid-stride grid for n work items of per threads each
// block: enough blocks to fill the GPU several times over, no more than n
// needs.
func (d *Device) gridFor(n int64, per int) int {
	need := (n + int64(per) - 1) / int64(per)
	most := int64(d.nsm * 32)
	if need > most {
		need = most
	}
	if need < 1 {
		need = 1
	}
	return int(need)
}

func sameDev(op string, ts ...*Tensor) (*Device, error) {
	var d *Device
	for _, t := range ts {
		if t == nil {
			continue
		}
		if d == nil {
			d = t.buf.dev
		} else if t.buf.dev != d {
			return nil, fmt.Errorf("gnnlib/cuda: %s: operands on different devices", op)
		}
	}
	return d, nil
}
