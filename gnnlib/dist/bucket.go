package dist

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// DefaultBucketBytes is the bucket size of NewBucketer given 0: 25 MiB,
// PyTorch DistributedDataParallel's default.
const DefaultBucketBytes = 25 << 20

// Bucketer all-reduces the gradients of a fixed list of parameters bucket
// by bucket: the parameters are grouped, last parameter first (the order
// in which a backward pass finishes them, as DDP groups them), into
// buckets of at most the bucket size in bytes (a larger parameter gets a
// bucket of its own), and each bucket is one collective call: on the host,
// the bucket's gradients are packed into one flat buffer, all-reduced and
// unpacked; with a TensorCommunicator and device gradients, the bucket's
// tensors are all-reduced in place as one group of calls. Fewer, larger
// calls amortise each call's latency; buckets bound the scratch memory.
type Bucketer struct {
	comm    Communicator
	params  []*tensor.Tensor
	buckets [][]int
	flat    []float32
}

// NewBucketer returns a Bucketer for params over comm; bucketBytes 0
// means DefaultBucketBytes.
func NewBucketer(params []*tensor.Tensor, comm Communicator, bucketBytes int) (*Bucketer, error) {
	if bucketBytes < 0 {
		return nil, fmt.Errorf("dist: bucket size %d bytes", bucketBytes)
	}
	if bucketBytes == 0 {
		bucketBytes = DefaultBucketBytes
	}
	b := &Bucketer{comm: comm, params: params}
	var cur []int
	size, most := 0, 0
	for i := len(params) - 1; i >= 0; i-- {
		p := params[i]
		if p.IsSparse() {
			return nil, fmt.Errorf("dist: parameter %d of shape %v is sparse", i, p.Shape())
		}
		n := 4 * p.Len()
		if len(cur) > 0 && size+n > bucketBytes {
			b.buckets = append(b.buckets, cur)
			cur, size = nil, 0
		}
		cur = append(cur, i)
		size += n
		most = max(most, size)
	}
	if len(cur) > 0 {
		b.buckets = append(b.buckets, cur)
	}
	b.flat = make([]float32, 0, most/4)
	return b, nil
}

// Buckets returns the buckets as indices into the parameter list, in the
// order they are reduced.
func (b *Bucketer) Buckets() [][]int {
	out := make([][]int, len(b.buckets))
	for i, k := range b.buckets {
		out[i] = append([]int(nil), k...)
	}
	return out
}

// AllReduce replaces each parameter's gradient by the sum or mean over the
// ranks. A parameter without a gradient (unused in this rank's forward
// pass) contributes zeros and gets the reduced gradient like the others,
// so that all ranks make the same calls.
func (b *Bucketer) AllReduce(op Op) error {
	grads := make([]*tensor.Tensor, len(b.params))
	for i, p := range b.params {
		g := p.Grad()
		if g == nil {
			g = tensor.ZerosLike(p)
			p.SetGrad(g)
		}
		grads[i] = g
	}
	return b.each(grads, func(ts []*tensor.Tensor, buf []float32) error {
		if tc, ok := b.comm.(TensorCommunicator); ok && buf == nil {
			return tc.AllReduceTensors(ts, op)
		}
		return b.comm.AllReduce(buf, op)
	})
}

// Broadcast copies root's parameter values into the other ranks'
// parameters, in place.
func (b *Bucketer) Broadcast(root int) error {
	return b.each(b.params, func(ts []*tensor.Tensor, buf []float32) error {
		if tc, ok := b.comm.(TensorCommunicator); ok && buf == nil {
			return tc.BroadcastTensors(ts, root)
		}
		return b.comm.Broadcast(buf, root)
	})
}

// each calls fn for every bucket of ts (parallel to the parameters):
// with buf nil and the bucket's tensors when they are all on a device and
// the communicator takes tensors, otherwise with the bucket packed into
// buf, which is unpacked after fn returns.
func (b *Bucketer) each(ts []*tensor.Tensor, fn func(ts []*tensor.Tensor, buf []float32) error) error {
	_, tensors := b.comm.(TensorCommunicator)
	for _, bucket := range b.buckets {
		bt := make([]*tensor.Tensor, len(bucket))
		onDevice := true
		for j, i := range bucket {
			bt[j] = ts[i]
			onDevice = onDevice && ts[i].IsOnDevice()
		}
		if tensors && onDevice {
			if err := fn(bt, nil); err != nil {
				return err
			}
			continue
		}
		// Host tensors are packed from their data; device tensors (with
		// a host communicator) visit the host for the call.
		devs := make([]tensor.Backend, len(bt))
		for j, t := range bt {
			if t.IsOnDevice() {
				devs[j] = t.Device()
				t.MoveTo(nil)
			}
		}
		flat := b.flat[:0]
		for _, t := range bt {
			flat = append(flat, t.Data()...)
		}
		err := fn(bt, flat)
		off := 0
		for j, t := range bt {
			d := t.Data()
			if err == nil {
				copy(d, flat[off:off+len(d)])
			}
			off += len(d)
			if devs[j] != nil {
				t.MoveTo(devs[j])
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}
