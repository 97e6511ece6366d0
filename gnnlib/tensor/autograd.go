package tensor

import (
	"bytes"
	"errors"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"weak"
)

// BackwardFunc maps the gradient of an op's output (same shape as the
// output) to the gradients of its inputs, one per input in order, each with
// that input's shape. An entry may be nil when that input needs no gradient
// (check inputs[i].RequiresGrad() to skip work). It must not modify grad.
// It may use any tensor op: what its ops record is dropped when it returns
// (Backward cuts the gradients it returns from it).
type BackwardFunc func(grad *Tensor) []*Tensor

// node is one recorded op on the tape.
type node struct {
	name     string
	edges    int // edges a graph op runs over, for profilers; 0 for other ops
	inputs   []*Tensor
	backward BackwardFunc
	// For an op whose output lives on a device, the tape refers to the
	// output through stub, a tensor of its shape and node without its
	// storage, and out finds the output itself while something else
	// keeps it: the tape alone then does not keep the device memory of
	// an intermediate that no backward function reads (a ReLU's input,
	// a dropout's) from the device's allocator until the tape dies.
	stub *Tensor
	out  weak.Pointer[Tensor]
	// device marks an op whose output lives on a device: Backward drops
	// its backward function once it has run.
	device bool
	// dtype is the format of the gradients the op's backward function
	// returns (Autocast's, Float32 outside Autocast), for the op hook.
	dtype DType
}

// errSpent is the error of a second backward pass through a device op.
var errSpent = errors.New("a second backward pass through a recorded device op, whose saved tensors the first pass released (record the forward pass again)")

// tapeRef returns what the tape keeps of the op input t: t itself, or
// for the output of a recorded device op its storage-less stub.
func tapeRef(t *Tensor) *Tensor {
	if t == nil || t.node == nil || t.dev == nil || t.node.out.Value() != t {
		return t
	}
	n := t.node
	if n.stub == nil {
		n.stub = &Tensor{shape: t.shape, node: n}
	}
	return n.stub
}

// self returns the tensor that v stands for on the tape: the op's output
// for a stub, while it is alive (nil once collected), else v.
func (v *Tensor) self() *Tensor {
	if v.node != nil && v.node.stub == v {
		return v.node.out.Value()
	}
	return v
}

// Gradient recording is switched off per goroutine, as PyTorch's grad mode
// is per thread: a training step's backward pass (which runs with
// recording off) does not stop another goroutine's forward pass from
// recording. gradOff counts the active no-grad scopes of all goroutines,
// so that recording costs nothing extra while there are none; offBy holds
// their depth per goroutine.
var (
	gradOff atomic.Int64
	offMu   sync.Mutex
	offBy   = map[uint64]int{}
)

// GradEnabled reports whether ops that the calling goroutine runs record
// the autograd graph.
func GradEnabled() bool {
	if gradOff.Load() == 0 {
		return true
	}
	id := goid()
	offMu.Lock()
	n := offBy[id]
	offMu.Unlock()
	return n == 0
}

// NoGrad runs f with gradient recording disabled (for evaluation and
// parameter updates), like torch.no_grad. The switch is the calling
// goroutine's: goroutines that f starts record as usual.
func NoGrad(f func()) {
	restore := DisableGrad()
	defer restore()
	f()
}

// DisableGrad turns gradient recording off for the calling goroutine until
// the returned function is called: restore := tensor.DisableGrad(); defer
// restore(). Calls nest.
func DisableGrad() (restore func()) {
	id := goid()
	offMu.Lock()
	offBy[id]++
	offMu.Unlock()
	gradOff.Add(1)
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			setOff(id, -1)
		}
	}
}

// setOff adds delta to goroutine id's no-grad depth.
func setOff(id uint64, delta int) {
	offMu.Lock()
	if offBy[id] += delta; offBy[id] <= 0 {
		delete(offBy, id)
	}
	offMu.Unlock()
	gradOff.Add(int64(delta))
}

// enableGrad turns recording on for the calling goroutine, whatever
// scopes it is in, until restore is called (GradCheck's analytic pass).
func enableGrad() (restore func()) {
	id := goid()
	offMu.Lock()
	n := offBy[id]
	offMu.Unlock()
	if n == 0 {
		return func() {}
	}
	setOff(id, -n)
	return func() {
		offMu.Lock()
		offBy[id] += n
		offMu.Unlock()
		gradOff.Add(int64(n))
	}
}

// backwardInScope runs bw, the backward function of a device op recorded
// under Autocast(dt), on g inside a scope of dt for goroutine id, the
// calling one: the pass usually runs outside the scope (loss.Backward()
// after Autocast returns), and the device's ops inside it then see dt,
// so that a backend writes the gradients in dt at once instead of in
// float32 first. The scope closes when bw returns or panics.
func backwardInScope(id uint64, dt DType, bw BackwardFunc, g *Tensor) []*Tensor {
	defer pushAutocast(id, dt)()
	return bw(g)
}

// goid returns the calling goroutine's id, read from the first line of its
// stack trace ("goroutine 18 [running]:"): Go offers no other way, and it
// is read only while some goroutine has recording off.
func goid() uint64 {
	var buf [32]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	var id uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

// RequiresGrad reports whether gradients flow to t: it is a leaf marked with
// SetRequiresGrad or the output of a recorded op.
func (t *Tensor) RequiresGrad() bool { return t.requiresGrad || t.node != nil }

// SetRequiresGrad marks a leaf tensor (a parameter) so that Backward
// accumulates its gradient into Grad. It returns t for chaining:
// w := tensor.Randn(1, 3, 4).SetRequiresGrad(true).
func (t *Tensor) SetRequiresGrad(on bool) *Tensor {
	t.requiresGrad = on
	return t
}

// Grad returns the gradient accumulated by Backward calls, or nil if none
// has reached t.
func (t *Tensor) Grad() *Tensor { return t.grad }

// SetGrad replaces the accumulated gradient (nil clears it); optimisers and
// gradient clipping use it.
func (t *Tensor) SetGrad(g *Tensor) { t.grad = g }

// ZeroGrad clears the accumulated gradient.
func (t *Tensor) ZeroGrad() { t.grad = nil }

// Detach returns a tensor sharing t's data but cut from the autograd graph
// (not requiring gradients).
func (t *Tensor) Detach() *Tensor {
	return &Tensor{data: t.data, shape: t.shape, sp: t.sp, dev: t.dev}
}

// IsLeaf reports whether t was not produced by a recorded op.
func (t *Tensor) IsLeaf() bool { return t.node == nil }

// Op returns the name of the op that produced t, or "" for a leaf.
func (t *Tensor) Op() string {
	if t.node == nil {
		return ""
	}
	return t.node.name
}

// OpEvent describes one op for a profiler hook.
type OpEvent struct {
	Name     string    // the op's name, e.g. "MatMul"
	Backward bool      // true for the op's backward pass
	Start    time.Time // zero when the op did not report its start
	End      time.Time
	Out      *Tensor // the op's output (forward) or the output gradient (backward)
	// Inputs are the op's inputs (in both passes), so that a profiler can
	// estimate FLOPs and bytes moved from their shapes. Do not modify them.
	// In the backward pass an input made by a recorded device op is the
	// tape's stand-in for it, which has its shape but not its values.
	Inputs []*Tensor
	// Edges is the number of edges a graph op (NewGraphOpSince) ran over,
	// whose work its tensor shapes do not show; 0 for other ops.
	Edges int
	// DType is the format the op stored its output in (forward) or its
	// input gradients in (backward): Float32, or under Autocast the
	// 16-bit format they were rounded to, so that a profiler can count
	// the bytes 16-bit storage would move (DType.Size a value).
	DType DType
}

var opHook atomic.Pointer[func(OpEvent)]

// setOpHook installs h to be called after every op's forward and backward
// pass (nil removes it) and returns a function restoring the previous hook.
// With no hook the cost per op is one atomic load. The hook runs on the
// goroutine that ran the op and must be fast.
func setOpHook(h func(OpEvent)) (restore func()) {
	var p *func(OpEvent)
	if h != nil {
		p = &h
	}
	old := opHook.Swap(p)
	return func() { opHook.Store(old) }
}

// opStart returns the current time when an op hook is installed and the
// zero time otherwise; pass it to newOpSince so the hook sees the op's
// duration.
func opStart() time.Time {
	if opHook.Load() == nil {
		return time.Time{}
	}
	return time.Now()
}

// NewOp records out as the result of an op named name applied to inputs, and
// returns out. It is the extension point for ops defined outside this
// package (SpMM over a graph, edge softmax, fused attention).
//
// Contract: out must be a fresh tensor computed by the caller (with gradients
// not flowing through any op used to compute it, e.g. computed from Data()).
// When gradients are enabled and some input requires them, out is linked to
// inputs with backward; otherwise out is returned unchanged and backward is
// never called. backward follows BackwardFunc: it gets the gradient of out
// and returns one gradient per input (nil allowed), each shaped like that
// input. Gradients of inputs reached by several paths are summed.
func NewOp(name string, out *Tensor, inputs []*Tensor, backward BackwardFunc) *Tensor {
	return newOp(time.Time{}, name, 0, out, inputs, backward)
}

// newOpSince is NewOp for an op that started at start (from opStart), so
// that the op hook can time it.
func newOpSince(start time.Time, name string, out *Tensor, inputs []*Tensor, backward BackwardFunc) *Tensor {
	return newOp(start, name, 0, out, inputs, backward)
}

func newOp(start time.Time, name string, edges int, out *Tensor, inputs []*Tensor, backward BackwardFunc) *Tensor {
	dt, cast := Float32, Float32
	if castOn.Load() != 0 { // mixed precision (autocast.go)
		backward, dt, cast = autocastOp(name, out, inputs, backward)
	}
	if GradEnabled() && backward != nil {
		for _, in := range inputs {
			if in != nil && in.RequiresGrad() {
				n := &node{name: name, edges: edges, inputs: inputs, backward: backward, dtype: cast}
				for i, in := range inputs {
					if r := tapeRef(in); r != in {
						if &n.inputs[0] == &inputs[0] {
							n.inputs = slices.Clone(inputs) // the caller's slice stays as it was
						}
						n.inputs[i] = r
					}
				}
				if out.dev != nil {
					n.out, n.device = weak.Make(out), true
				}
				out.node = n
				break
			}
		}
	}
	if h := opHook.Load(); h != nil {
		(*h)(OpEvent{Name: name, Start: start, End: time.Now(), Out: out, Inputs: inputs, Edges: edges, DType: dt})
	}
	return out
}

// Backward computes the gradient of the one-element tensor t with respect
// to every tensor it depends on and adds it to the Grad of each leaf that
// requires gradients. It panics with a *ShapeError when t has more than one
// element; use BackwardWith for those.
func (t *Tensor) Backward() {
	if t.Len() != 1 {
		panic(&ShapeError{Op: "Backward", A: cloneInts(t.shape), Msg: "needs a one-element tensor (use BackwardWith)"})
	}
	seed := OnesLike(t)
	if seed.dev != nil {
		key := weak.Make(seed)
		unitSeeds.Store(key, true)
		defer unitSeeds.Delete(key)
	}
	t.BackwardWith(seed)
}

// unitSeeds holds the device seeds of the Backward passes running now:
// one-element tensors of 1, which a device op's backward function may
// take as the gradient it stands for (isUnitSeed) instead of multiplying
// by them. Keyed by the seed itself, so that concurrent passes on other
// goroutines each see their own; BackwardWith's seeds are never in it.
// Held weakly, so that the pass frees the seed when it is spent, as it
// did before.
var unitSeeds sync.Map // weak.Pointer[Tensor] -> bool

// isUnitSeed reports whether g is the seed of a running Backward pass,
// all ones.
func isUnitSeed(g *Tensor) bool {
	_, ok := unitSeeds.Load(weak.Make(g))
	return ok
}

// BackwardWith is Backward seeded with grad, the gradient of some scalar
// with respect to t (same shape as t). On a device, the gradients the pass
// makes for intermediate tensors go back to the device's allocator as soon
// as they are spent (a Storage with a Free method is freed), so a
// BackwardFunc must return fresh tensors, views of grad, or tensors of the
// recorded graph, and must not keep the gradients it returns. The pass
// also drops the backward function of each device op it has run, with the
// tensors it saved (as PyTorch does without retain_graph): a second pass
// through a device op panics with a *DeviceError; record the forward pass
// again instead. On the CPU the tape may be backpropagated again.
func (t *Tensor) BackwardWith(grad *Tensor) {
	if !grad.SameShape(t) {
		panic(&ShapeError{Op: "BackwardWith", A: cloneInts(t.shape), B: cloneInts(grad.shape)})
	}
	if grad.Device() != t.Device() {
		grad = grad.moved(t.Device())
	}
	if !t.RequiresGrad() {
		return
	}
	// The pass does not switch recording off (a no-grad scope would cost
	// every op of the pass a lookup of its goroutine, see goid): the ops
	// of the backward functions may record, and the gradients they return
	// are cut from what they recorded as they come, so that nothing of it
	// outlives its backward function.
	order := topoOrder(t)
	inGraph := make(map[*node]bool, len(order)) // the recorded ops
	for _, v := range order {
		if v.node != nil {
			inGraph[v.node] = true
		}
	}
	grads := map[*Tensor]*gradAcc{t: {g: grad}}
	rel := newReleaser(order, grad)
	var id uint64 // the calling goroutine's, looked up for the first op that needs it (backwardInScope)
	hook := opHook.Load()
	for i := len(order) - 1; i >= 0; i-- {
		v := order[i]
		acc := grads[v]
		if acc == nil {
			continue
		}
		delete(grads, v) // free memory as the pass goes back
		if v.node == nil {
			if v.requiresGrad {
				switch {
				case v.grad == nil && acc.g.DType() != Float32:
					// A leaf's gradient is float32, as its values are
					// (Clone widens 16-bit device storage).
					v.grad = acc.g.dense().Clone()
				case v.grad == nil && rel.sole(acc.g):
					// A device gradient only this pass holds becomes
					// the leaf's gradient without a copy.
					v.grad = acc.g
					continue
				case v.grad == nil:
					v.grad = acc.g.dense().Clone()
				default:
					addInto(v.grad, acc.g)
				}
			}
			rel.drop(acc.g)
			continue
		}
		var start time.Time
		if hook != nil {
			start = time.Now()
		}
		bw := v.node.backward
		if bw == nil {
			panic(&DeviceError{Op: v.node.name + " backward", Device: deviceName(acc.g.Device()), Err: errSpent})
		}
		var owned weak.Pointer[Tensor]
		if v.node.device && ReleaseSpentActivations && rel.sole(acc.g) {
			if u := v.self(); u == nil || !u.requiresGrad { // not read again below
				owned = weak.Make(acc.g)
				ownedGrads.Store(owned, true)
			}
		}
		var ins []*Tensor
		if v.node.device && v.node.dtype != Float32 {
			if id == 0 {
				id = goid()
			}
			ins = backwardInScope(id, v.node.dtype, bw, acc.g)
		} else {
			ins = bw(acc.g)
		}
		if owned != (weak.Pointer[Tensor]{}) {
			ownedGrads.Delete(owned)
		}
		if v.node.device {
			// What a device op's backward function keeps (its saved
			// tensors) goes back now, not when the tape dies.
			v.node.backward = nil
		}
		for _, g := range ins {
			if g != nil && g.node != nil && !inGraph[g.node] {
				g.node = nil
			}
		}
		if hook != nil {
			(*hook)(OpEvent{Name: v.node.name, Backward: true, Start: start, End: time.Now(), Out: acc.g, Inputs: v.node.inputs, Edges: v.node.edges, DType: v.node.dtype})
		}
		if u := v.self(); u != nil && u.requiresGrad { // a non-leaf the user asked to keep
			if u.grad == nil {
				u.grad = acc.g.Clone()
			} else {
				addInto(u.grad, acc.g)
			}
		}
		var added []*Tensor // gradients summed into others, kept by nobody
		for j, in := range v.node.inputs {
			if j >= len(ins) || ins[j] == nil || in == nil || !in.RequiresGrad() {
				continue
			}
			g := ins[j]
			if !g.SameShape(in) {
				panic(&ShapeError{Op: v.node.name + " backward", A: cloneInts(in.shape), B: cloneInts(g.shape), Msg: "gradient shape differs from input shape"})
			}
			if a := grads[in]; a == nil {
				grads[in] = &gradAcc{g: g}
				rel.keep(g)
			} else {
				if !a.owned {
					old := a.g
					a.g = a.g.dense().Clone()
					a.owned = true
					rel.keep(a.g)
					rel.drop(old)
				}
				addInto(a.g, g)
				added = append(added, g)
			}
		}
		// v's gradient and those summed into others are spent now: on a
		// device their memory goes back at once instead of waiting for
		// the garbage collector (see releaser).
		rel.drop(acc.g)
		for _, g := range added {
			rel.unused(g)
		}
	}
}

// releaser frees the device memory of gradients that a backward pass made
// and no longer needs, so that a pass over a deep network on a GPU holds
// the gradients of one frontier at a time rather than every gradient it
// made until the next garbage collection. It counts the references the
// pass's accumulators hold to each device Storage and frees one (through
// an optional Free method of the Storage) when the count drops to zero,
// unless the Storage belongs to a live tensor of the recorded graph (a
// forward tensor, a leaf, an input) or is the seed gradient: a
// BackwardFunc may return any of those, and they outlive the pass.
// Host tensors are not tracked.
//
// With ReleaseSpentActivations on, the graph's tensors are held weakly:
// the tape refers to a device op's output through its storage-less stub,
// so that an activation goes back to the allocator once the last
// backward function that reads it has run (the pass drops each device
// op's backward function, with what it saved). Holding their storage
// here, as the set does with it off (keyed by Storage), keeps every
// activation of the network until the pass ends.
type releaser struct {
	refs map[Storage]int
	// protected holds the graph's tensors by their storage's address; a
	// storage is protected while one of them is alive and still has it
	// (an address reused by a storage made during the pass matches no
	// live tensor's).
	protected map[uintptr][]weak.Pointer[Tensor]
	// strong holds the storages of a type that is not a pointer (no
	// address to key by), and every storage with ReleaseSpentActivations
	// off: the set keeps those alive.
	strong map[Storage]bool
}

// ReleaseSpentActivations makes the backward pass hold the graph's
// tensors weakly (see releaser), so that on a device an activation goes
// back to the allocator once the last backward function that reads it
// has run, not when the pass ends: on devicetest.Fake's ledger the
// arxiv-sized nn epochs' peaks fall from 0.95 to 0.77 GiB (GCN) and from
// 1.92 to 1.55 GiB (GATv2, before gnnlib/nn's RecomputeGATv2Product).
// CrossEntropy's device backward then also
// frees the gradient its forward pass made once it has scaled it (or,
// under loss.Backward(), hands it over unscaled), and the pass tells a
// device op's backward function which gradients it may free
// (backend.OwnsGrad; gnnlib/nn's fused layers do; both passed gnnlib/cuda's
// device tests on an H100 in the final run of 2026-12-06; false turns
// them off with the rest). On by
// default since it ran on an H100 (2026-12-06: gnnlib/cuda's
// TestFastPathsOnDevice, and with GCNAggregateFirst and HandOffBiasGrad
// the arxiv-sized epochs' peaks 2.22 → 1.93 GiB for GAT and 2.16 → 2.03
// for GATv2; BENCHMARKS.md); false keeps the strong set, holding every
// activation until the pass ends. Set it before a backward pass starts.
var ReleaseSpentActivations = true

func newReleaser(order []*Tensor, seed *Tensor) *releaser {
	r := &releaser{}
	weakly := ReleaseSpentActivations
	protect := func(t *Tensor) {
		if t != nil {
			t = t.self() // a stub's storage is its op's output's
		}
		if t == nil || t.dev == nil {
			return
		}
		if r.refs == nil {
			r.refs = map[Storage]int{}
			r.protected = map[uintptr][]weak.Pointer[Tensor]{}
		}
		a, ok := storageAddr(t.dev)
		if !ok || !weakly {
			if r.strong == nil {
				r.strong = map[Storage]bool{}
			}
			r.strong[t.dev] = true
			return
		}
		w := weak.Make(t)
		if !slices.Contains(r.protected[a], w) {
			r.protected[a] = append(r.protected[a], w)
		}
	}
	protect(seed)
	for _, v := range order {
		protect(v)
		if v.node != nil {
			for _, in := range v.node.inputs {
				protect(in)
			}
		}
	}
	return r
}

// storageAddr returns the address of s when its dynamic type is a
// pointer (every backend's storage is), without keeping s alive.
func storageAddr(s Storage) (uintptr, bool) {
	v := reflect.ValueOf(s)
	if v.Kind() != reflect.Pointer {
		return 0, false
	}
	return v.Pointer(), true
}

// isProtected reports whether s is the storage of a live tensor of the
// recorded graph or of the seed.
func (r *releaser) isProtected(s Storage) bool {
	if r.strong[s] {
		return true
	}
	a, ok := storageAddr(s)
	if !ok {
		return false
	}
	for _, w := range r.protected[a] {
		if t := w.Value(); t != nil && t.dev == s {
			return true
		}
	}
	return false
}

// keep counts a reference from an accumulator to g's storage.
func (r *releaser) keep(g *Tensor) {
	if r.refs != nil && g.dev != nil {
		r.refs[g.dev]++
	}
}

// sole reports whether g is a device gradient that exactly one
// accumulator of the pass refers to and no tensor of the graph shares.
func (r *releaser) sole(g *Tensor) bool {
	return r.refs != nil && g.dev != nil && !r.isProtected(g.dev) && r.refs[g.dev] == 1
}

// unused frees g's storage if nothing in the pass refers to it: g was
// summed into another gradient and not kept.
func (r *releaser) unused(g *Tensor) {
	if r.refs == nil || g.dev == nil || r.isProtected(g.dev) || r.refs[g.dev] > 0 {
		return
	}
	if f, ok := g.dev.(interface{ Free() }); ok {
		f.Free()
	}
}

// drop removes a reference of an accumulator to g's storage and frees
// the storage when nothing in the pass refers to it any more.
func (r *releaser) drop(g *Tensor) {
	if r.refs == nil || g.dev == nil || r.isProtected(g.dev) {
		return
	}
	n := r.refs[g.dev] - 1
	if n > 0 {
		r.refs[g.dev] = n
		return
	}
	delete(r.refs, g.dev)
	if f, ok := g.dev.(interface{ Free() }); ok {
		f.Free()
	}
}

// ownedGrads holds, weakly, the gradients that running backward passes
// have handed to a device op's backward function as that function's
// alone (backend.OwnsGrad): only one accumulator refers to the gradient,
// no tensor of the graph shares its storage, and the pass reads it again
// only to drop it (freeing storage twice is allowed).
var ownedGrads sync.Map // weak.Pointer[Tensor] -> bool

// ownsGrad is backend.OwnsGrad.
func ownsGrad(g *Tensor) bool {
	if g == nil || g.dev == nil {
		return false
	}
	_, ok := ownedGrads.Load(weak.Make(g))
	return ok
}

// gradAcc is a gradient being accumulated; owned says whether it may be
// modified in place (otherwise it may alias a tensor an op returned).
type gradAcc struct {
	g     *Tensor
	owned bool
}

// addInto adds src to dst element-wise in place (same shapes).
func addInto(dst, src *Tensor) {
	if dst.dev != nil || src.dev != nil {
		deviceAddInto(dst, src)
		return
	}
	s := src.dense().data
	d := dst.data
	parallelFor(len(d), elemGrain, func(lo, hi int) {
		d, s := d[lo:hi], s[lo:hi]
		for i := range d {
			d[i] += s[i]
		}
	})
}

// topoOrder returns the tensors that root depends on through recorded ops,
// inputs before outputs, without recursion (graphs can be deep).
func topoOrder(root *Tensor) []*Tensor {
	var order []*Tensor
	seen := map[*Tensor]bool{root: true}
	type frame struct {
		t    *Tensor
		next int
	}
	stack := []frame{{t: root}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.t.node != nil && f.next < len(f.t.node.inputs) {
			in := f.t.node.inputs[f.next]
			f.next++
			if in != nil && in.RequiresGrad() && !seen[in] {
				seen[in] = true
				stack = append(stack, frame{t: in})
			}
			continue
		}
		order = append(order, f.t)
		stack = stack[:len(stack)-1]
	}
	return order
}
