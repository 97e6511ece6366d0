package quant

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// qlayer is one weighted layer of a wrapped model: its own trainable copy
// of the weights (QAT never touches the original model), the observer of
// its input and, once converted, the integer weights and frozen
// activation parameters.
type qlayer struct {
	name  string
	w, b  *tensor.Tensor
	axis  int // output-channel axis of w
	float bool
	// dynamicInput quantizes the input row by row at run time (the raw
	// features of a GNN's first layer) instead of with calibrated ranges.
	dynamicInput bool

	obs Observer
	act Params

	wq     *QTensor
	packed *PackedMatrix
	wScale []float32 // scale of each output column
	corr   []int32   // (offset − Z)·colsum: the zero-point correction
	// lanes holds the weight codes of a dynamic-input layer as 16-bit
	// lanes (laneWords(n) words per input row) for sums of weight rows
	// selected by a sparse binary input (codes.uniformRows).
	lanes []int64
}

func newQLayer(name string, w, b *tensor.Tensor, axis int, cfg Config) *qlayer {
	l := &qlayer{name: name, w: w.Clone().SetRequiresGrad(true), axis: axis, obs: cfg.newObserver()}
	if b != nil {
		l.b = b.Clone().SetRequiresGrad(true)
	}
	return l
}

func (l *qlayer) params() []*tensor.Tensor {
	if l.b == nil {
		return []*tensor.Tensor{l.w}
	}
	return []*tensor.Tensor{l.w, l.b}
}

// weightParams computes the weights' parameters from their current values.
func (l *qlayer) weightParams(cfg Config) (Params, error) {
	axis := l.axis
	if cfg.PerTensorWeights {
		axis = PerTensor
	}
	return ParamsFor(l.w, Symmetric, cfg.bits(), axis)
}

// fakeWeight returns the fake-quantized weight (STE in backward), or the
// float weight for a layer kept in float.
func (l *qlayer) fakeWeight(cfg Config) (*tensor.Tensor, error) {
	if l.float {
		return l.w, nil
	}
	p, err := l.weightParams(cfg)
	if err != nil {
		return nil, err
	}
	return FakeQuant(l.w, p)
}

// actParams returns the input's parameters from the observer.
func (l *qlayer) actParams(cfg Config) (Params, error) {
	return ObserverParams(l.obs, cfg.actScheme(), 8)
}

// fakeInput observes x (when observe) and fake-quantizes it.
func (l *qlayer) fakeInput(x *tensor.Tensor, cfg Config, observe bool, keep []bool) (*tensor.Tensor, error) {
	if l.float {
		return x, nil
	}
	if l.dynamicInput {
		return fakeQuantDynamicRows(x)
	}
	if observe {
		l.obs.Observe(x.Data())
	}
	p, err := l.actParams(cfg)
	if err != nil {
		return nil, err
	}
	return fakeQuantRows(x, p, keep)
}

// convert freezes the layer: quantizes and packs its weights as a k×n
// matrix (k inputs, n output channels) and fixes its input parameters.
func (l *qlayer) convert(cfg Config) error {
	if l.float {
		return nil
	}
	p, err := l.weightParams(cfg)
	if err != nil {
		return err
	}
	if l.wq, err = Quantize(l.w, p); err != nil {
		return err
	}
	codes := l.wq.Int8s()
	shape := l.w.Shape()
	var k, n int
	if l.axis == 0 { // convolution [out, in, kh, kw]: pack its transpose
		n, k = shape[0], l.w.Len()/shape[0]
		t := make([]int8, len(codes))
		for o := 0; o < n; o++ {
			for p := 0; p < k; p++ {
				t[p*n+o] = codes[o*k+p]
			}
		}
		codes = t
	} else {
		k, n = shape[0], shape[1]
	}
	l.packed = PackInt8(codes, k, n)
	if l.dynamicInput {
		wpr := laneWords(n)
		l.lanes = make([]int64, k*wpr)
		row := make([]int32, n)
		for p := 0; p < k; p++ {
			for j, c := range codes[p*n : p*n+n] {
				row[j] = int32(c)
			}
			packLanes(l.lanes[p*wpr:p*wpr+wpr], row)
		}
	}
	l.wScale = make([]float32, n)
	for j := range l.wScale {
		l.wScale[j] = p.Scale[min(j, len(p.Scale)-1)]
	}
	if !l.dynamicInput {
		if l.act, err = l.actParams(cfg); err != nil {
			return err
		}
	}
	l.corr = make([]int32, n)
	if !l.dynamicInput {
		d := l.act.offset() - l.act.Zero[0]
		for j, s := range l.packed.ColSums() {
			l.corr[j] = d * s
		}
	}
	return nil
}

// bytes returns the parameter bytes of the layer as stored for inference.
func (l *qlayer) bytes() int {
	n := 0
	if l.b != nil {
		n += 4 * l.b.Len()
	}
	if l.float || l.wq == nil {
		return n + 4*l.w.Len()
	}
	n += len(l.wq.Packed()) + 4*len(l.wq.Scale) // symmetric: no zero points
	if !l.dynamicInput {
		n += 8 // the input's S and Z
	}
	return n
}

// quantizeInput quantizes x with the frozen static parameters into stored
// int8 codes.
func (l *qlayer) quantizeInput(x []float32) []int8 {
	q := make([]int8, len(x))
	parallelFor(len(x), 1<<15, func(lo, hi int) {
		quantizeInto(q[lo:hi], x[lo:hi], l.act, 0)
	})
	return q
}

// dequantize writes y[i, j] = (acc[i, j] + corr[j])·sx[i]·S_w[j] + b[j]
// (sx of one element applies to every row; bias may be nil).
func (l *qlayer) dequantize(y []float32, acc []int32, rows int, sx, bias []float32) {
	n := len(l.wScale)
	parallelFor(rows, max(1, (1<<14)/max(n, 1)), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			l.dequantizeSerial(y[i*n:i*n+n], acc[i*n:i*n+n], 1, sx[min(i, len(sx)-1)], bias)
		}
	})
}

// dequantizeSerial is dequantize for rows with one input scale sx, on the
// calling goroutine.
func (l *qlayer) dequantizeSerial(y []float32, acc []int32, rows int, sx float32, bias []float32) {
	n := len(l.wScale)
	for i := 0; i < rows; i++ {
		yr, ar := y[i*n:i*n+n], acc[i*n:i*n+n]
		for j, a := range ar {
			v := float32(a+l.corr[j]) * sx * l.wScale[j]
			if bias != nil {
				v += bias[j]
			}
			yr[j] = v
		}
	}
}

// matmul computes x·W (+ b when bias) for a 2-D x in integers: static or
// per-row dynamic quantization of x, the int8 GEMM (sparse for a sparse
// x), then dequantization. A float layer uses float32.
func (l *qlayer) matmul(x *tensor.Tensor, bias bool) (*tensor.Tensor, error) {
	if l.float {
		y := x.MatMul(l.w)
		if bias && l.b != nil {
			y = y.Add(l.b)
		}
		return y, nil
	}
	acc, sx, err := l.matmulAcc(x)
	if err != nil {
		return nil, err
	}
	rows, n := x.Size(0), l.packed.N
	y := make([]float32, rows*n)
	var b []float32
	if bias && l.b != nil {
		b = l.b.Data()
	}
	l.dequantize(y, acc, rows, sx, b)
	return tensor.Wrap(y, rows, n), nil
}

// matmulAcc returns the INT32 accumulators of x·W (zero-point correction
// not yet added) and the input scale of each row (one for all rows with
// static parameters).
func (l *qlayer) matmulAcc(x *tensor.Tensor) ([]int32, []float32, error) {
	if l.packed == nil {
		return nil, nil, fmt.Errorf("quant: layer %s: %w", l.name, ErrNotConverted)
	}
	if x.Dims() != 2 || x.Size(1) != l.packed.K {
		return nil, nil, fmt.Errorf("quant: layer %s: input %v for %d inputs: %w", l.name, x.Shape(), l.packed.K, ErrRange)
	}
	rows, n := x.Size(0), l.packed.N
	acc := make([]int32, rows*n)
	switch {
	case x.IsSparse():
		indptr, indices, vals := x.CSR()
		codes, scales := quantizeRows(indptr, vals)
		SparseGEMMInt8(acc, indptr, indices, codes, l.packed)
		return acc, scales, nil
	case l.dynamicInput:
		k := l.packed.K
		indptr := make([]int, rows+1)
		for i := range indptr {
			indptr[i] = i * k
		}
		codes, scales := quantizeRows(indptr, x.Data())
		GEMMInt8(acc, codes, rows, l.packed)
		return acc, scales, nil
	}
	GEMMInt8(acc, l.quantizeInput(x.Data()), rows, l.packed)
	return acc, []float32{l.act.Scale[0]}, nil
}

// quantizeRows quantizes each row (delimited by indptr) of vals
// symmetrically with its own scale max|row|/127.
func quantizeRows(indptr []int, vals []float32) ([]int8, []float32) {
	codes := make([]int8, len(vals))
	scales := make([]float32, len(indptr)-1)
	for i := range scales {
		row := vals[indptr[i]:indptr[i+1]]
		var a float32
		for _, v := range row {
			if v > a {
				a = v
			} else if -v > a {
				a = -v
			}
		}
		s := float32(1)
		if a > 0 {
			s = a / 127
		}
		scales[i] = s
		inv := 1 / s
		for e, v := range row {
			codes[indptr[i]+e] = int8(min(max(roundToInt32(v*inv), -127), 127))
		}
	}
	return codes, scales
}

// fakeQuantDynamicRows fake-quantizes each row of x with its own
// symmetric scale, as the integer path does for raw input features. The
// input is data, so no gradient flows back.
func fakeQuantDynamicRows(x *tensor.Tensor) (*tensor.Tensor, error) {
	if x.Dims() != 2 {
		return nil, fmt.Errorf("quant: per-row quantization of shape %v: %w", x.Shape(), ErrRange)
	}
	if x.IsSparse() {
		indptr, indices, vals := x.CSR()
		codes, scales := quantizeRows(indptr, vals)
		out := make([]float32, len(vals))
		for i := range scales {
			for e := indptr[i]; e < indptr[i+1]; e++ {
				out[e] = float32(codes[e]) * scales[i]
			}
		}
		return tensor.SparseFromCSR(x.Size(0), x.Size(1), indptr, indices, out), nil
	}
	rows, k := x.Size(0), x.Size(1)
	indptr := make([]int, rows+1)
	for i := range indptr {
		indptr[i] = i * k
	}
	codes, scales := quantizeRows(indptr, x.Data())
	out := make([]float32, len(codes))
	for i, c := range codes {
		out[i] = float32(c) * scales[i/k]
	}
	return tensor.Wrap(out, rows, k), nil
}
