//go:build cuda

package cuda

// #include <cuda.h>
// #include <stdlib.h>
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"gorgonia.org/cu"
)

// cuGraph is an instantiated CUDA graph and the template it came from,
// whose nodes cuGraphExec*SetParams name.
type cuGraph struct {
	g     C.CUgraph
	exec  C.CUgraphExec
	nodes []C.CUgraphNode
}

// function returns the named kernel of the embedded modules, looked up
// once.
func (d *cuDriver) function(kernel string) (cu.Function, error) {
	fn, ok := d.fns[kernel]
	if ok {
		return fn, nil
	}
	mod := d.mod
	if strings.HasPrefix(kernel, "sm80_") {
		if !d.has80 {
			return fn, fmt.Errorf("gnnlib/cuda: kernel %s: %w (this GPU is %s)", kernel, ErrNoBF16, d.desc)
		}
		mod = d.mod80
	}
	if strings.HasPrefix(kernel, "sm90_") {
		if !d.has90 {
			why := "they need compute capability 9.0"
			if d.err90 != nil {
				why = "the driver could not compile sm90a.ptx: " + d.err90.Error()
			}
			return fn, fmt.Errorf("gnnlib/cuda: kernel %s: the sm_90a kernels are not loaded on %s (%s)", kernel, d.desc, why)
		}
		mod = d.mod90
	}
	fn, err := mod.Function(kernel)
	if err != nil {
		return fn, fmt.Errorf("gnnlib/cuda: kernel %s: %w", kernel, err)
	}
	d.fns[kernel] = fn
	return fn, nil
}

// kernelParams fills p for n; the argument arrays are C memory, freed by
// the function returned once the driver has copied them.
func (d *cuDriver) kernelParams(n *graphNode, p *C.CUDA_KERNEL_NODE_PARAMS) (func(), error) {
	fn, err := d.functionShared(n.kernel, n.shared)
	if err != nil {
		return nil, err
	}
	// cu.Function is a struct of one CUfunction; gorgonia.org/cu does
	// not export it.
	p._func = *(*C.CUfunction)(unsafe.Pointer(&fn))
	p.gridDimX, p.gridDimY, p.gridDimZ = C.uint(n.grid[0]), C.uint(n.grid[1]), C.uint(n.grid[2])
	p.blockDimX, p.blockDimY, p.blockDimZ = C.uint(n.block[0]), C.uint(n.block[1]), C.uint(n.block[2])
	p.sharedMemBytes = C.uint(n.shared)
	p.extra = nil
	k := len(n.args)
	argv := C.malloc(C.size_t(8 * max(k, 1)))
	argp := C.malloc(C.size_t(8 * max(k, 1)))
	for i, a := range n.args {
		*(*uint64)(unsafe.Add(argv, 8*i)) = a
		*(*unsafe.Pointer)(unsafe.Add(argp, 8*i)) = unsafe.Add(argv, 8*i)
	}
	p.kernelParams = (*unsafe.Pointer)(argp)
	return func() { C.free(argv); C.free(argp) }, nil
}

func memsetParams(n *graphNode) C.CUDA_MEMSET_NODE_PARAMS {
	var p C.CUDA_MEMSET_NODE_PARAMS
	p.dst = C.CUdeviceptr(n.dst)
	p.value = C.uint(n.v)
	p.elementSize = 4
	p.width = C.size_t(n.n)
	p.height = 1
	p.pitch = 0
	return p
}

func (d *cuDriver) graphMake(nodes []graphNode) (graphExec, error) {
	g := &cuGraph{}
	if r := C.cuGraphCreate(&g.g, 0); r != C.CUDA_SUCCESS {
		return nil, fmt.Errorf("gnnlib/cuda: cuGraphCreate: %s", resultText(r))
	}
	var ctx C.CUcontext
	C.cuCtxGetCurrent(&ctx)
	var prev C.CUgraphNode
	for i := range nodes {
		n := &nodes[i]
		var node C.CUgraphNode
		deps, ndeps := &prev, C.size_t(1)
		if i == 0 {
			deps, ndeps = nil, 0
		}
		var r C.CUresult
		if n.kernel == "" {
			p := memsetParams(n)
			r = C.cuGraphAddMemsetNode(&node, g.g, deps, ndeps, &p, ctx)
		} else {
			var p C.CUDA_KERNEL_NODE_PARAMS
			free, err := d.kernelParams(n, &p)
			if err != nil {
				C.cuGraphDestroy(g.g)
				return nil, err
			}
			r = C.cuGraphAddKernelNode(&node, g.g, deps, ndeps, &p)
			free()
		}
		if r != C.CUDA_SUCCESS {
			C.cuGraphDestroy(g.g)
			return nil, fmt.Errorf("gnnlib/cuda: graph node %d (%s): %s", i, n.kernel, resultText(r))
		}
		g.nodes = append(g.nodes, node)
		prev = node
	}
	if r := C.cuGraphInstantiateWithFlags(&g.exec, g.g, 0); r != C.CUDA_SUCCESS {
		C.cuGraphDestroy(g.g)
		return nil, fmt.Errorf("gnnlib/cuda: cuGraphInstantiateWithFlags: %s", resultText(r))
	}
	return g, nil
}

func (d *cuDriver) graphSet(ge graphExec, i int, n *graphNode) error {
	g := ge.(*cuGraph)
	var r C.CUresult
	if n.kernel == "" {
		var ctx C.CUcontext
		C.cuCtxGetCurrent(&ctx)
		p := memsetParams(n)
		r = C.cuGraphExecMemsetNodeSetParams(g.exec, g.nodes[i], &p, ctx)
	} else {
		var p C.CUDA_KERNEL_NODE_PARAMS
		free, err := d.kernelParams(n, &p)
		if err != nil {
			return err
		}
		r = C.cuGraphExecKernelNodeSetParams(g.exec, g.nodes[i], &p)
		free()
	}
	if r != C.CUDA_SUCCESS {
		return fmt.Errorf("gnnlib/cuda: update graph node %d (%s): %s", i, n.kernel, resultText(r))
	}
	return nil
}

func (d *cuDriver) graphLaunch(ge graphExec) error {
	g := ge.(*cuGraph)
	s := d.stream.C()
	if r := C.cuGraphLaunch(g.exec, *(*C.CUstream)(unsafe.Pointer(&s))); r != C.CUDA_SUCCESS {
		return fmt.Errorf("gnnlib/cuda: cuGraphLaunch: %s", resultText(r))
	}
	return nil
}

func (d *cuDriver) graphFree(ge graphExec) {
	g := ge.(*cuGraph)
	C.cuGraphExecDestroy(g.exec)
	C.cuGraphDestroy(g.g)
}
