//go:build cuda

package dist

// The NCCL calls this package makes, declared here (not from nccl.h, so
// that building needs no NCCL headers) and reached through dlopen and
// dlsym, so that the binary starts without NCCL. The enum values are
// NCCL's (nccl.h, stable since 2.0; ncclAvg since 2.10).

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct { char internal[128]; } gnnNcclUniqueId;
typedef void *gnnNcclComm;
typedef void *gnnStream;

enum { gnnNcclFloat32 = 7 };
enum { gnnNcclSum = 0, gnnNcclAvg = 4 };

static struct {
	void *lib;
	int (*getVersion)(int *);
	int (*getUniqueId)(gnnNcclUniqueId *);
	int (*commInitRank)(gnnNcclComm *, int, gnnNcclUniqueId, int);
	int (*allReduce)(const void *, void *, size_t, int, int, gnnNcclComm, gnnStream);
	int (*broadcast)(const void *, void *, size_t, int, int, gnnNcclComm, gnnStream);
	int (*groupStart)(void);
	int (*groupEnd)(void);
	int (*commDestroy)(gnnNcclComm);
	const char *(*getErrorString)(int);
} gnnNccl;

// gnnNcclOpen loads the library at path and its symbols. It returns NULL,
// or the dlerror text (copied by the caller at once), or the name of the
// first missing symbol in *missing.
static const char *gnnNcclOpen(const char *path, const char **missing) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		return dlerror();
	}
#define GNN_SYM(field, name) \
	if (!(*(void **)&gnnNccl.field = dlsym(h, name))) { *missing = name; dlclose(h); return "missing symbol"; }
	GNN_SYM(getVersion, "ncclGetVersion")
	GNN_SYM(getUniqueId, "ncclGetUniqueId")
	GNN_SYM(commInitRank, "ncclCommInitRank")
	GNN_SYM(allReduce, "ncclAllReduce")
	GNN_SYM(broadcast, "ncclBroadcast")
	GNN_SYM(groupStart, "ncclGroupStart")
	GNN_SYM(groupEnd, "ncclGroupEnd")
	GNN_SYM(commDestroy, "ncclCommDestroy")
	GNN_SYM(getErrorString, "ncclGetErrorString")
#undef GNN_SYM
	gnnNccl.lib = h;
	return NULL;
}

static int gnnNcclVersion(int *v) { return gnnNccl.getVersion(v); }
static int gnnNcclGetUniqueId(gnnNcclUniqueId *id) { return gnnNccl.getUniqueId(id); }
static int gnnNcclCommInitRank(gnnNcclComm *c, int n, gnnNcclUniqueId *id, int rank) {
	return gnnNccl.commInitRank(c, n, *id, rank);
}
// Device addresses and the stream come from Go as integers (they are not
// Go pointers).
static int gnnNcclAllReduce(uintptr_t buf, size_t n, int op, gnnNcclComm c, uintptr_t s) {
	return gnnNccl.allReduce((void *)buf, (void *)buf, n, gnnNcclFloat32, op, c, (gnnStream)s);
}
static int gnnNcclBroadcast(uintptr_t buf, size_t n, int root, gnnNcclComm c, uintptr_t s) {
	return gnnNccl.broadcast((void *)buf, (void *)buf, n, gnnNcclFloat32, root, c, (gnnStream)s);
}
static int gnnNcclGroupStart(void) { return gnnNccl.groupStart(); }
static int gnnNcclGroupEnd(void) { return gnnNccl.groupEnd(); }
static int gnnNcclCommDestroy(gnnNcclComm c) { return gnnNccl.commDestroy(c); }
static const char *gnnNcclErrorString(int r) { return gnnNccl.getErrorString(r); }
*/
import "C"

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/gnnlab/gnnlab/gnnlib/cuda"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// ncclHint says how to get NCCL.
const ncclHint = "install PyTorch's NCCL wheel (pip install nvidia-nccl-cu12, which PyTorch's CUDA wheels pull in) or the system's libnccl2, or set " + NCCLEnv + " to the path of libnccl.so.2"

// ncclLib is the loaded library: its path and version code, or why it
// could not be loaded.
var ncclLib struct {
	once    sync.Once
	path    string
	version int
	err     error
}

// loadNCCL loads NCCL once, trying ncclCandidates in order.
func loadNCCL() error {
	ncclLib.once.Do(func() {
		var tried []string
		for _, p := range ncclCandidates() {
			cp := C.CString(p)
			var missing *C.char
			msg := C.gnnNcclOpen(cp, &missing)
			C.free(unsafe.Pointer(cp))
			if msg == nil {
				var v C.int
				if r := C.gnnNcclVersion(&v); r != 0 {
					tried = append(tried, fmt.Sprintf("%s (ncclGetVersion failed: %d)", p, int(r)))
					continue
				}
				ncclLib.path, ncclLib.version = p, int(v)
				return
			}
			if missing != nil {
				tried = append(tried, fmt.Sprintf("%s (has no %s: too old an NCCL?)", p, C.GoString(missing)))
			} else {
				tried = append(tried, C.GoString(msg))
			}
		}
		ncclLib.err = fmt.Errorf("%w: no usable libnccl.so.2; tried: %s; %s", ErrNoNCCL, strings.Join(tried, "; "), ncclHint)
	})
	return ncclLib.err
}

// versionText renders an NCCL version code (major*10000 + minor*100 +
// patch since 2.9, major*1000 + minor*100 + patch before).
func versionText(v int) string {
	if v >= 20900 {
		return fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100)
	}
	return fmt.Sprintf("%d.%d.%d", v/1000, v/100%10, v%100)
}

func ncclVersion() (string, error) {
	if err := loadNCCL(); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s (%s)", versionText(ncclLib.version), ncclLib.path), nil
}

// ncclErr turns an ncclResult_t into an error naming the call.
func ncclErr(call string, r C.int) error {
	if r == 0 {
		return nil
	}
	return fmt.Errorf("dist: %s: NCCL error %d: %s", call, int(r), C.GoString(C.gnnNcclErrorString(r)))
}

// ncclComm is one rank of an NCCL communicator, on one device.
type ncclComm struct {
	dev        *cuda.Device
	comm       C.gnnNcclComm
	rank, size int
	closed     bool
}

func uniqueID() ([]byte, error) {
	var id C.gnnNcclUniqueId
	if err := ncclErr("ncclGetUniqueId", C.gnnNcclGetUniqueId(&id)); err != nil {
		return nil, err
	}
	return C.GoBytes(unsafe.Pointer(&id), C.int(len(id.internal))), nil
}

// initRank initialises rank rank on dev's thread; it returns when all
// ranks have joined.
func initRank(dev *cuda.Device, id []byte, rank, size int) (*ncclComm, error) {
	var cid C.gnnNcclUniqueId
	if len(id) != len(cid.internal) {
		return nil, fmt.Errorf("dist: NCCL unique id of %d bytes, want %d: %w", len(id), len(cid.internal), ErrMismatch)
	}
	C.memcpy(unsafe.Pointer(&cid), unsafe.Pointer(&id[0]), C.size_t(len(id)))
	c := &ncclComm{dev: dev, rank: rank, size: size}
	err := dev.Run(func(uintptr) error {
		return ncclErr(fmt.Sprintf("ncclCommInitRank(rank %d of %d on %v)", rank, size, dev), C.gnnNcclCommInitRank(&c.comm, C.int(size), &cid, C.int(rank)))
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

func newNCCLGroup(devs []*cuda.Device) ([]Communicator, error) {
	if err := loadNCCL(); err != nil {
		return nil, err
	}
	if len(devs) == 0 {
		return nil, fmt.Errorf("dist: NewNCCLGroup of no devices")
	}
	id, err := uniqueID()
	if err != nil {
		return nil, err
	}
	cs := make([]Communicator, len(devs))
	errs := make([]error, len(devs))
	var wg sync.WaitGroup
	for r, d := range devs {
		wg.Add(1)
		go func() { // every rank's init waits for the others
			defer wg.Done()
			c, err := initRank(d, id, r, len(devs))
			if err != nil {
				errs[r] = err
				return
			}
			cs[r] = c
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			for _, c := range cs {
				if c != nil {
					c.Close()
				}
			}
			return nil, fmt.Errorf("dist: NCCL rank %d: %w", r, err)
		}
	}
	return cs, nil
}

func connectNCCL(dev *cuda.Device, addr string, rank, size int, o TCPOptions) (Communicator, error) {
	if err := loadNCCL(); err != nil {
		return nil, err
	}
	var id []byte
	if rank == 0 {
		var err error
		if id, err = uniqueID(); err != nil {
			return nil, err
		}
	}
	id, err := ExchangeID(addr, rank, size, id, o)
	if err != nil {
		return nil, err
	}
	return initRank(dev, id, rank, size)
}

func (c *ncclComm) Rank() int { return c.rank }
func (c *ncclComm) Size() int { return c.size }

func (c *ncclComm) String() string {
	return fmt.Sprintf("dist.NCCL(rank %d of %d on %v)", c.rank, c.size, c.dev)
}

func ncclOp(op Op) (C.int, error) {
	switch op {
	case Sum:
		return C.gnnNcclSum, nil
	case Mean:
		if ncclLib.version < 21000 {
			return 0, fmt.Errorf("dist: NCCL %s has no ncclAvg (2.10 or later needed for Mean)", versionText(ncclLib.version))
		}
		return C.gnnNcclAvg, nil
	}
	return 0, checkOp(op)
}

// run queues calls on the device's stream between ncclGroupStart and
// ncclGroupEnd.
func (c *ncclComm) run(what string, call func(stream C.uintptr_t) C.int) error {
	if c.closed {
		return fmt.Errorf("dist: rank %d: %s: %w", c.rank, what, ErrClosed)
	}
	return c.dev.Run(func(s uintptr) error {
		if err := ncclErr("ncclGroupStart", C.gnnNcclGroupStart()); err != nil {
			return err
		}
		err := ncclErr(what, call(C.uintptr_t(s)))
		if gerr := ncclErr("ncclGroupEnd", C.gnnNcclGroupEnd()); err == nil {
			err = gerr
		}
		return err
	})
}

// storages returns the device tensors behind ts, which must be on c's
// device.
func (c *ncclComm) storages(ts []*tensor.Tensor) ([]*cuda.Tensor, error) {
	out := make([]*cuda.Tensor, len(ts))
	for i, t := range ts {
		s, ok := t.Storage().(*cuda.Tensor)
		if !ok || s.Device() != c.dev {
			return nil, fmt.Errorf("dist: rank %d: tensor %d of shape %v is not on %v", c.rank, i, t.Shape(), c.dev)
		}
		out[i] = s
	}
	return out, nil
}

func (c *ncclComm) AllReduceTensors(ts []*tensor.Tensor, op Op) error {
	cop, err := ncclOp(op)
	if err != nil {
		return err
	}
	ss, err := c.storages(ts)
	if err != nil {
		return err
	}
	return c.run("ncclAllReduce", func(s C.uintptr_t) C.int {
		for i, t := range ss {
			if r := C.gnnNcclAllReduce(C.uintptr_t(t.DevicePtr()), C.size_t(ts[i].Len()), cop, c.comm, s); r != 0 {
				return r
			}
		}
		return 0
	})
}

func (c *ncclComm) BroadcastTensors(ts []*tensor.Tensor, root int) error {
	if err := checkRoot(root, c.size); err != nil {
		return err
	}
	ss, err := c.storages(ts)
	if err != nil {
		return err
	}
	return c.run("ncclBroadcast", func(s C.uintptr_t) C.int {
		for i, t := range ss {
			if r := C.gnnNcclBroadcast(C.uintptr_t(t.DevicePtr()), C.size_t(ts[i].Len()), C.int(root), c.comm, s); r != 0 {
				return r
			}
		}
		return 0
	})
}

// viaDevice runs a collective on a host buffer through a device copy.
func (c *ncclComm) viaDevice(buf []float32, fn func(t *tensor.Tensor) error) error {
	if len(buf) == 0 {
		return nil
	}
	t := tensor.FromSlice(buf, len(buf)).To(c.dev.Backend())
	if err := fn(t); err != nil {
		return err
	}
	copy(buf, t.CPU().Data())
	return nil
}

func (c *ncclComm) AllReduce(buf []float32, op Op) error {
	return c.viaDevice(buf, func(t *tensor.Tensor) error { return c.AllReduceTensors([]*tensor.Tensor{t}, op) })
}

func (c *ncclComm) Broadcast(buf []float32, root int) error {
	if err := checkRoot(root, c.size); err != nil {
		return err
	}
	return c.viaDevice(buf, func(t *tensor.Tensor) error { return c.BroadcastTensors([]*tensor.Tensor{t}, root) })
}

func (c *ncclComm) Barrier() error {
	one := []float32{0}
	return c.AllReduce(one, Sum)
}

func (c *ncclComm) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	return c.dev.Run(func(uintptr) error { return ncclErr("ncclCommDestroy", C.gnnNcclCommDestroy(c.comm)) })
}
