package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"
)

// The Planetoid files are Python 2 pickles of numpy arrays, scipy CSR
// matrices and a defaultdict of adjacency lists. gopickle runs the pickle
// machine; the classes below stand in for the Python ones it names, each
// doing just what unpickling these files asks of it.

// errPickle is wrapped by errors about a pickle whose content is not what
// the Planetoid format holds.
var errPickle = errors.New("unexpected pickle content")

// ndarray is a numpy array: numpy.core.multiarray._reconstruct makes an
// empty one and its __setstate__ receives (version, shape, dtype,
// is_fortran, raw bytes).
type ndarray struct {
	shape []int
	dtype *dtype
	raw   string
}

func (a *ndarray) PySetState(state any) error {
	t, ok := state.(*types.Tuple)
	if !ok || t.Len() != 5 {
		return fmt.Errorf("numpy array state %T: %w", state, errPickle)
	}
	shape, ok := t.Get(1).(*types.Tuple)
	if !ok {
		return fmt.Errorf("numpy array shape %T: %w", t.Get(1), errPickle)
	}
	for _, d := range *shape {
		n, ok := d.(int)
		if !ok {
			return fmt.Errorf("numpy array dimension %T: %w", d, errPickle)
		}
		a.shape = append(a.shape, n)
	}
	if a.dtype, ok = t.Get(2).(*dtype); !ok {
		return fmt.Errorf("numpy array dtype %T: %w", t.Get(2), errPickle)
	}
	if fortran, _ := t.Get(3).(bool); fortran && len(a.shape) > 1 {
		return fmt.Errorf("numpy array in Fortran order: %w", errPickle)
	}
	if a.raw, ok = t.Get(4).(string); !ok {
		return fmt.Errorf("numpy array data %T (object arrays are not supported): %w", t.Get(4), errPickle)
	}
	if n := a.len() * a.dtype.size; n != len(a.raw) {
		return fmt.Errorf("numpy array of shape %v and dtype %s holds %d bytes, want %d: %w", a.shape, a.dtype.kind, len(a.raw), n, errPickle)
	}
	return nil
}

func (a *ndarray) len() int {
	n := 1
	for _, d := range a.shape {
		n *= d
	}
	return n
}

// float64s converts the elements to float64, whatever their numeric dtype.
func (a *ndarray) float64s() ([]float64, error) {
	n := a.len()
	out := make([]float64, n)
	var bo binary.ByteOrder = binary.LittleEndian
	if a.dtype.order == ">" {
		bo = binary.BigEndian
	}
	b := []byte(a.raw)
	s := a.dtype.size
	for i := 0; i < n; i++ {
		p := b[i*s : i*s+s]
		switch a.dtype.kind {
		case "f8":
			out[i] = math.Float64frombits(bo.Uint64(p))
		case "f4":
			out[i] = float64(math.Float32frombits(bo.Uint32(p)))
		case "i8":
			out[i] = float64(int64(bo.Uint64(p)))
		case "i4":
			out[i] = float64(int32(bo.Uint32(p)))
		case "u4":
			out[i] = float64(bo.Uint32(p))
		case "u8":
			out[i] = float64(bo.Uint64(p))
		case "i1":
			out[i] = float64(int8(p[0]))
		case "u1", "b1":
			out[i] = float64(p[0])
		default:
			return nil, fmt.Errorf("numpy dtype %q: %w", a.dtype.kind, errPickle)
		}
	}
	return out, nil
}

func (a *ndarray) ints() ([]int, error) {
	f, err := a.float64s()
	if err != nil {
		return nil, err
	}
	out := make([]int, len(f))
	for i, v := range f {
		out[i] = int(v)
	}
	return out, nil
}

// dtype is numpy.dtype: called with the type code ("f8", "i4", ...) and
// given its byte order by __setstate__.
type dtype struct {
	kind  string
	size  int
	order string
}

var dtypeSizes = map[string]int{"f8": 8, "f4": 4, "i8": 8, "i4": 4, "u8": 8, "u4": 4, "i1": 1, "u1": 1, "b1": 1}

type dtypeClass struct{}

func (dtypeClass) Call(args ...any) (any, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("numpy.dtype without arguments: %w", errPickle)
	}
	kind, _ := args[0].(string)
	size, ok := dtypeSizes[kind]
	if !ok {
		return nil, fmt.Errorf("numpy dtype %q: %w", kind, errPickle)
	}
	return &dtype{kind: kind, size: size, order: "<"}, nil
}

func (d *dtype) PySetState(state any) error {
	if t, ok := state.(*types.Tuple); ok && t.Len() > 1 {
		if o, ok := t.Get(1).(string); ok {
			d.order = o
		}
	}
	return nil
}

type reconstructFunc struct{}

func (reconstructFunc) Call(args ...any) (any, error) { return &ndarray{}, nil }

// csrMatrix is scipy.sparse.csr_matrix, restored by copy_reg's
// _reconstructor and then given its __dict__ (indptr, indices, data,
// _shape) entry by entry.
type csrMatrix struct {
	fields map[string]any
}

type csrClass struct{}

func (csrClass) PyNew(args ...any) (any, error) { return &csrMatrix{fields: map[string]any{}}, nil }

func (m *csrMatrix) PyDictSet(key, value any) error {
	k, ok := key.(string)
	if !ok {
		return fmt.Errorf("csr_matrix attribute %T: %w", key, errPickle)
	}
	m.fields[k] = value
	return nil
}

// csr is a sparse matrix in plain Go slices.
type csr struct {
	rows, cols int
	indptr     []int
	indices    []int
	values     []float32
}

func (m *csrMatrix) toCSR() (*csr, error) {
	arr := func(name string) (*ndarray, error) {
		a, ok := m.fields[name].(*ndarray)
		if !ok {
			return nil, fmt.Errorf("csr_matrix.%s is %T: %w", name, m.fields[name], errPickle)
		}
		return a, nil
	}
	shape, ok := m.fields["_shape"].(*types.Tuple)
	if !ok || shape.Len() != 2 {
		return nil, fmt.Errorf("csr_matrix._shape is %T: %w", m.fields["_shape"], errPickle)
	}
	rows, _ := shape.Get(0).(int)
	cols, _ := shape.Get(1).(int)
	out := &csr{rows: rows, cols: cols}
	var err error
	for _, f := range []struct {
		name string
		dst  *[]int
	}{{"indptr", &out.indptr}, {"indices", &out.indices}} {
		a, err := arr(f.name)
		if err != nil {
			return nil, err
		}
		if *f.dst, err = a.ints(); err != nil {
			return nil, err
		}
	}
	d, err := arr("data")
	if err != nil {
		return nil, err
	}
	v, err := d.float64s()
	if err != nil {
		return nil, err
	}
	out.values = make([]float32, len(v))
	for i, x := range v {
		out.values[i] = float32(x)
	}
	if len(out.indptr) != rows+1 || out.indptr[rows] != len(out.indices) || len(out.indices) != len(out.values) {
		return nil, fmt.Errorf("csr_matrix of shape (%d, %d) with %d row pointers, %d indices, %d values: %w",
			rows, cols, len(out.indptr), len(out.indices), len(out.values), errPickle)
	}
	for _, c := range out.indices {
		if c < 0 || c >= cols {
			return nil, fmt.Errorf("csr_matrix column %d of %d: %w", c, cols, errPickle)
		}
	}
	return out, nil
}

// defaultDict is collections.defaultdict with int keys and list values, the
// shape of ind.<name>.graph.
type defaultDict struct {
	m map[int][]int
}

type defaultDictClass struct{}

func (defaultDictClass) Call(args ...any) (any, error) { return &defaultDict{m: map[int][]int{}}, nil }

func (defaultDictClass) PyNew(args ...any) (any, error) { return &defaultDict{m: map[int][]int{}}, nil }

// Set receives the items; a malformed one is recorded as a nil list under
// key −1, since gopickle's DictSetter cannot return an error.
func (d *defaultDict) Set(key, value any) {
	k, ok := key.(int)
	l, lok := value.(*types.List)
	if !ok || !lok {
		d.m[-1] = nil
		return
	}
	vs := make([]int, 0, len(*l))
	for _, x := range *l {
		v, ok := x.(int)
		if !ok {
			d.m[-1] = nil
			return
		}
		vs = append(vs, v)
	}
	d.m[k] = vs
}

// unpickle reads one pickle with the classes above.
func unpickle(r io.Reader) (any, error) {
	u := pickle.NewUnpickler(r)
	u.FindClass = func(module, name string) (any, error) {
		switch module + "." + name {
		case "numpy.core.multiarray._reconstruct", "numpy._core.multiarray._reconstruct":
			return reconstructFunc{}, nil
		case "numpy.dtype":
			return dtypeClass{}, nil
		case "numpy.ndarray":
			return types.NewGenericClass(module, name), nil
		case "scipy.sparse.csr.csr_matrix", "scipy.sparse._csr.csr_matrix":
			return csrClass{}, nil
		case "collections.defaultdict":
			return defaultDictClass{}, nil
		case "__builtin__.list", "builtins.list":
			return types.NewGenericClass(module, name), nil
		}
		return nil, fmt.Errorf("class %s.%s: %w", module, name, errPickle)
	}
	v, err := u.Load()
	if err != nil {
		return nil, err
	}
	return v, nil
}
