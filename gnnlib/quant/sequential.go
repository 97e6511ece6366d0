package quant

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// Sequential is a quantized copy of an *nn.Sequential made of Linear and
// Conv2D layers and parameter-free layers between them (activations,
// pooling, Flatten, Dropout): an MLP from nn.NewMLP or nn.NewLeNet5.
// Each weighted layer quantizes its input with a calibrated range, runs
// an INT8 GEMM with INT32 accumulation (a convolution through an int8
// im2col) and dequantizes with its bias; the parameter-free layers run in
// float32 between them.
type Sequential struct {
	cfg       Config
	steps     []seqStep
	training  bool
	converted bool
}

// seqStep is a weighted layer (q) or a parameter-free one (f).
type seqStep struct {
	q              *qlayer
	conv           bool
	k, stride, pad int
	f              nn.Layer
}

// NewSequential wraps model for quantization. It fails on a layer with
// parameters other than Linear and Conv2D (say, BatchNorm: fold it into
// the convolution first).
func NewSequential(model *nn.Sequential, cfg Config) (*Sequential, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	s := &Sequential{cfg: cfg}
	var weighted []*qlayer
	for i, l := range model.Layers {
		switch t := l.(type) {
		case *nn.Linear:
			q := newQLayer(fmt.Sprintf("%d:Linear", i), t.W, t.B, 1, cfg)
			s.steps = append(s.steps, seqStep{q: q})
			weighted = append(weighted, q)
		case *nn.Conv2D:
			q := newQLayer(fmt.Sprintf("%d:Conv2D", i), t.W, t.B, 0, cfg)
			s.steps = append(s.steps, seqStep{q: q, conv: true, k: t.W.Size(2), stride: t.Stride, pad: t.Padding})
			weighted = append(weighted, q)
		default:
			if len(l.Params()) > 0 {
				return nil, fmt.Errorf("quant: NewSequential: layer %d (%v) has parameters: %w", i, l, ErrUnsupported)
			}
			s.steps = append(s.steps, seqStep{f: l})
		}
	}
	if len(weighted) == 0 {
		return nil, fmt.Errorf("quant: NewSequential: no Linear or Conv2D layer: %w", ErrUnsupported)
	}
	weighted[0].float = weighted[0].float || cfg.KeepFirst
	weighted[len(weighted)-1].float = weighted[len(weighted)-1].float || cfg.KeepLast
	return s, nil
}

// Params returns the trainable copies of the weights.
func (s *Sequential) Params() []*tensor.Tensor {
	var ps []*tensor.Tensor
	for _, st := range s.steps {
		if st.q != nil {
			ps = append(ps, st.q.params()...)
		}
	}
	return ps
}

// SetTraining switches between training (observers updated, dropout
// layers active) and evaluation.
func (s *Sequential) SetTraining(on bool) {
	s.training = on
	for _, st := range s.steps {
		if st.f != nil {
			st.f.SetTraining(on)
		}
	}
}

// Config returns the configuration.
func (s *Sequential) Config() Config { return s.cfg }

func (s *Sequential) String() string {
	return fmt.Sprintf("quant.Sequential(%d layers, %v, converted=%t)", len(s.steps), s.cfg, s.converted)
}

// Calibrate runs the float model on the batch x in evaluation mode and
// records each weighted layer's input in its observer.
func (s *Sequential) Calibrate(x *tensor.Tensor) error {
	var err error
	tensor.NoGrad(func() { _, err = s.run(x, passCalibrate, false) })
	return err
}

// FakeForward is the QAT forward pass (see GNN.FakeForward).
func (s *Sequential) FakeForward(x *tensor.Tensor) (*tensor.Tensor, error) {
	return s.run(x, passFake, s.training)
}

func (s *Sequential) run(x *tensor.Tensor, mode passMode, training bool) (*tensor.Tensor, error) {
	var err error
	for _, st := range s.steps {
		if st.f != nil {
			x = st.f.Forward(x)
			continue
		}
		l := st.q
		in, w := x, l.w
		if mode == passFake {
			if in, err = l.fakeInput(x, s.cfg, training, nil); err != nil {
				return nil, err
			}
			if w, err = l.fakeWeight(s.cfg); err != nil {
				return nil, err
			}
		} else if !l.float {
			l.obs.Observe(x.Data())
		}
		if st.conv {
			x = tensor.Conv2D(in, w, l.b, st.stride, st.pad)
			continue
		}
		x = in.MatMul(w)
		if l.b != nil {
			x = x.Add(l.b)
		}
	}
	return x, nil
}

// Convert freezes the model for integer inference.
func (s *Sequential) Convert() error {
	for _, st := range s.steps {
		if st.q != nil {
			if err := st.q.convert(s.cfg); err != nil {
				return err
			}
		}
	}
	s.converted = true
	return nil
}

// Forward runs the converted model on the batch x with the integer
// kernels.
func (s *Sequential) Forward(x *tensor.Tensor) (*tensor.Tensor, error) {
	if !s.converted {
		return nil, ErrNotConverted
	}
	var err error
	tensor.NoGrad(func() {
		for _, st := range s.steps {
			switch {
			case st.f != nil:
				x = st.f.Forward(x)
			case st.conv:
				x, err = st.q.conv2D(x, st.k, st.stride, st.pad)
			default:
				x, err = st.q.matmul(x, true)
			}
			if err != nil {
				return
			}
		}
	})
	return x, err
}

// Bytes returns the parameter bytes of the converted model (or of the
// float copy before Convert).
func (s *Sequential) Bytes() int {
	n := 0
	for _, st := range s.steps {
		if st.q != nil {
			n += st.q.bytes()
		}
	}
	return n
}

// conv2D runs a convolution in integers: quantize the NCHW input, build
// the patches (rows = output pixels, columns = c·kh·kw) directly in int8,
// padding with the code of zero, multiply by the packed [c·kh·kw, out]
// weights and write NCHW float32 outputs.
func (l *qlayer) conv2D(x *tensor.Tensor, k, stride, pad int) (*tensor.Tensor, error) {
	if l.float {
		return tensor.Conv2D(x, l.w, l.b, stride, pad), nil
	}
	if l.packed == nil {
		return nil, fmt.Errorf("quant: layer %s: %w", l.name, ErrNotConverted)
	}
	s := x.Shape()
	if len(s) != 4 || s[1]*k*k != l.packed.K {
		return nil, fmt.Errorf("quant: layer %s: input %v for %d×%d×%d patches: %w", l.name, s, l.packed.K/(k*k), k, k, ErrRange)
	}
	n, c, h, w := s[0], s[1], s[2], s[3]
	oh, ow := (h+2*pad-k)/stride+1, (w+2*pad-k)/stride+1
	ckk, oc, pix := l.packed.K, l.packed.N, oh*ow
	xq := l.quantizeInput(x.Data())
	zero := int8(l.act.Zero[0] - l.act.offset())
	out := make([]float32, n*oc*pix)
	var bias []float32
	if l.b != nil {
		bias = l.b.Data()
	}
	// One image at a time keeps the patches in cache; images run in
	// parallel and the GEMM inside stays on its goroutine.
	parallelFor(n, 1, func(lo, hi int) {
		cols := make([]int8, pix*ckk)
		acc := make([]int32, pix*oc)
		for img := lo; img < hi; img++ {
			src := xq[img*c*h*w : (img+1)*c*h*w]
			im2colInt8(cols, src, c, h, w, k, stride, pad, oh, ow, zero)
			gemmSerial(acc, cols, pix, l.packed)
			// Dequantize straight into NCHW: output channel o of pixel p
			// goes to dst[o*pix+p].
			dst := out[img*oc*pix : (img+1)*oc*pix]
			sx := l.act.Scale[0]
			for p := 0; p < pix; p++ {
				ar := acc[p*oc : p*oc+oc]
				for o, a := range ar {
					v := float32(a+l.corr[o]) * sx * l.wScale[o]
					if bias != nil {
						v += bias[o]
					}
					dst[o*pix+p] = v
				}
			}
		}
	})
	return tensor.Wrap(out, n, oc, oh, ow), nil
}

// im2colInt8 writes the patches of one C×H×W image of int8 codes as rows
// of cols (one row of c·k·k codes per output pixel), padding with zero,
// the code of the real value 0. Each kernel row is one contiguous run of
// the image, copied whole away from the borders.
func im2colInt8(cols, src []int8, c, h, w, k, stride, pad, oh, ow int, zero int8) {
	ckk := c * k * k
	for oy := 0; oy < oh; oy++ {
		for ox := 0; ox < ow; ox++ {
			row := cols[(oy*ow+ox)*ckk : (oy*ow+ox+1)*ckk]
			ix0 := ox*stride - pad
			inside := ix0 >= 0 && ix0+k <= w
			i := 0
			for ch := 0; ch < c; ch++ {
				for ky := 0; ky < k; ky++ {
					iy := oy*stride + ky - pad
					seg := row[i : i+k]
					i += k
					switch {
					case iy < 0 || iy >= h:
						for j := range seg {
							seg[j] = zero
						}
					case inside:
						base := (ch*h+iy)*w + ix0
						copy(seg, src[base:base+k])
					default:
						for j := range seg {
							if ix := ix0 + j; ix >= 0 && ix < w {
								seg[j] = src[(ch*h+iy)*w+ix]
							} else {
								seg[j] = zero
							}
						}
					}
				}
			}
		}
	}
}
