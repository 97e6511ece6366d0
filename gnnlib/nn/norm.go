package nn

import (
	"fmt"
	"math"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// BatchNorm normalises each channel over the batch (and, for images, over
// the pixels): y = Gamma·(x−mean)/sqrt(var+Eps) + Beta. While training it
// uses the batch's statistics and updates RunningMean and RunningVar
// (unbiased variance, weight Momentum); in evaluation mode it uses the
// running ones. NewBatchNorm1D takes [N, C] inputs, NewBatchNorm2D
// [N, C, H, W]. Forward and backward are one fused op. The running
// statistics are not parameters, so To leaves them where they are: they
// move in place to the device of the input that Forward gets (read them
// with CPU()).
type BatchNorm struct {
	Mode
	Gamma, Beta             *tensor.Tensor
	RunningMean, RunningVar *tensor.Tensor
	Momentum, Eps           float32
	dims                    int
}

func newBatchNorm(c, dims int) *BatchNorm {
	return &BatchNorm{
		Gamma: param(tensor.Ones(c)), Beta: param(tensor.Zeros(c)),
		RunningMean: tensor.Zeros(c), RunningVar: tensor.Ones(c),
		Momentum: 0.1, Eps: 1e-5, dims: dims,
	}
}

// NewBatchNorm1D returns batch normalisation over c features of [N, C]
// inputs.
func NewBatchNorm1D(c int) *BatchNorm { return newBatchNorm(c, 2) }

// NewBatchNorm2D returns batch normalisation over c channels of
// [N, C, H, W] inputs.
func NewBatchNorm2D(c int) *BatchNorm { return newBatchNorm(c, 4) }

// Params returns Gamma and Beta (the running statistics are not trained).
func (b *BatchNorm) Params() []*tensor.Tensor { return []*tensor.Tensor{b.Gamma, b.Beta} }

func (b *BatchNorm) String() string {
	return fmt.Sprintf("BatchNorm%dD(%d)", 1+boolInt(b.dims == 4), b.Gamma.Len())
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Forward normalises x.
func (b *BatchNorm) Forward(x *tensor.Tensor) *tensor.Tensor {
	s := x.Shape()
	c := b.Gamma.Len()
	if len(s) != b.dims || s[1] != c {
		want := "[N, C]"
		if b.dims == 4 {
			want = "[N, C, H, W]"
		}
		panic(&tensor.ShapeError{Op: "BatchNorm", A: s, B: []int{c}, Msg: "needs " + want + " with C channels"})
	}
	n, inner := s[0], 1
	for _, d := range s[2:] {
		inner *= d
	}
	m := n * inner
	train := b.Training()
	if train && m < 2 {
		panic(&tensor.ShapeError{Op: "BatchNorm", A: s, Msg: "needs more than one value per channel in training"})
	}
	if x.IsOnDevice() {
		return b.deviceForward(x)
	}
	b.statsTo(nil) // the running statistics follow the input
	xd := x.Data()
	gamma, beta := b.Gamma.Data(), b.Beta.Data()
	mean := make([]float64, c)
	invstd := make([]float32, c)
	if train {
		vars := make([]float64, c)
		for i := 0; i < n; i++ {
			for ch := 0; ch < c; ch++ {
				for _, v := range xd[(i*c+ch)*inner : (i*c+ch+1)*inner] {
					mean[ch] += float64(v)
				}
			}
		}
		for ch := range mean {
			mean[ch] /= float64(m)
		}
		for i := 0; i < n; i++ {
			for ch := 0; ch < c; ch++ {
				mu := mean[ch]
				for _, v := range xd[(i*c+ch)*inner : (i*c+ch+1)*inner] {
					d := float64(v) - mu
					vars[ch] += d * d
				}
			}
		}
		rm, rv, mom := b.RunningMean.Data(), b.RunningVar.Data(), float64(b.Momentum)
		for ch := range vars {
			v := vars[ch] / float64(m)
			invstd[ch] = float32(1 / math.Sqrt(v+float64(b.Eps)))
			rm[ch] = float32((1-mom)*float64(rm[ch]) + mom*mean[ch])
			rv[ch] = float32((1-mom)*float64(rv[ch]) + mom*vars[ch]/float64(m-1))
		}
	} else {
		rm, rv := b.RunningMean.Data(), b.RunningVar.Data()
		for ch := range mean {
			mean[ch] = float64(rm[ch])
			invstd[ch] = float32(1 / math.Sqrt(float64(rv[ch])+float64(b.Eps)))
		}
	}
	xhat := make([]float32, len(xd))
	out := make([]float32, len(xd))
	for i := 0; i < n; i++ {
		for ch := 0; ch < c; ch++ {
			lo, hi := (i*c+ch)*inner, (i*c+ch+1)*inner
			mu, is, g, bt := float32(mean[ch]), invstd[ch], gamma[ch], beta[ch]
			for k := lo; k < hi; k++ {
				h := (xd[k] - mu) * is
				xhat[k] = h
				out[k] = g*h + bt
			}
		}
	}
	return tensor.NewOp("BatchNorm", tensor.Wrap(out, s...), []*tensor.Tensor{x, b.Gamma, b.Beta}, func(grad *tensor.Tensor) []*tensor.Tensor {
		dy := grad.Data()
		dgamma := make([]float32, c)
		dbeta := make([]float32, c)
		sg := make([]float64, c)
		sb := make([]float64, c)
		for i := 0; i < n; i++ {
			for ch := 0; ch < c; ch++ {
				for k := (i*c + ch) * inner; k < (i*c+ch+1)*inner; k++ {
					sg[ch] += float64(dy[k] * xhat[k])
					sb[ch] += float64(dy[k])
				}
			}
		}
		for ch := range sg {
			dgamma[ch], dbeta[ch] = float32(sg[ch]), float32(sb[ch])
		}
		dx := make([]float32, len(dy))
		for i := 0; i < n; i++ {
			for ch := 0; ch < c; ch++ {
				lo, hi := (i*c+ch)*inner, (i*c+ch+1)*inner
				k0 := gamma[ch] * invstd[ch]
				if !train {
					for k := lo; k < hi; k++ {
						dx[k] = dy[k] * k0
					}
					continue
				}
				fm := float32(m)
				for k := lo; k < hi; k++ {
					dx[k] = k0 / fm * (fm*dy[k] - dbeta[ch] - xhat[k]*dgamma[ch])
				}
			}
		}
		return []*tensor.Tensor{tensor.Wrap(dx, s...), tensor.Wrap(dgamma, c), tensor.Wrap(dbeta, c)}
	})
}

// LayerNorm normalises each row over its last axis of size D:
// y = Gamma·(x−mean)/sqrt(var+Eps) + Beta with Gamma and Beta of shape [D].
type LayerNorm struct {
	Mode
	Gamma, Beta *tensor.Tensor
	Eps         float32
}

// NewLayerNorm returns layer normalisation over a last axis of size d.
func NewLayerNorm(d int) *LayerNorm {
	return &LayerNorm{Gamma: param(tensor.Ones(d)), Beta: param(tensor.Zeros(d)), Eps: 1e-5}
}

// Params returns Gamma and Beta.
func (l *LayerNorm) Params() []*tensor.Tensor { return []*tensor.Tensor{l.Gamma, l.Beta} }

func (l *LayerNorm) String() string { return fmt.Sprintf("LayerNorm(%d)", l.Gamma.Len()) }

// Forward normalises the rows of x.
func (l *LayerNorm) Forward(x *tensor.Tensor) *tensor.Tensor {
	s := x.Shape()
	d := l.Gamma.Len()
	if len(s) == 0 || s[len(s)-1] != d {
		panic(&tensor.ShapeError{Op: "LayerNorm", A: s, B: []int{d}, Msg: "last axis must match"})
	}
	if x.IsOnDevice() {
		return l.deviceForward(x)
	}
	xd := x.Data()
	rows := len(xd) / d
	gamma, beta := l.Gamma.Data(), l.Beta.Data()
	xhat := make([]float32, len(xd))
	out := make([]float32, len(xd))
	invstd := make([]float32, rows)
	for r := 0; r < rows; r++ {
		row := xd[r*d : r*d+d]
		var mu, v float64
		for _, a := range row {
			mu += float64(a)
		}
		mu /= float64(d)
		for _, a := range row {
			v += (float64(a) - mu) * (float64(a) - mu)
		}
		is := float32(1 / math.Sqrt(v/float64(d)+float64(l.Eps)))
		invstd[r] = is
		for j, a := range row {
			h := (a - float32(mu)) * is
			xhat[r*d+j] = h
			out[r*d+j] = gamma[j]*h + beta[j]
		}
	}
	return tensor.NewOp("LayerNorm", tensor.Wrap(out, s...), []*tensor.Tensor{x, l.Gamma, l.Beta}, func(grad *tensor.Tensor) []*tensor.Tensor {
		dy := grad.Data()
		dx := make([]float32, len(dy))
		sg := make([]float64, d)
		sb := make([]float64, d)
		fd := float32(d)
		for r := 0; r < rows; r++ {
			var s1, s2 float32
			for j := 0; j < d; j++ {
				k := r*d + j
				sg[j] += float64(dy[k] * xhat[k])
				sb[j] += float64(dy[k])
				dh := dy[k] * gamma[j]
				s1 += dh
				s2 += dh * xhat[k]
			}
			for j := 0; j < d; j++ {
				k := r*d + j
				dx[k] = invstd[r] / fd * (fd*dy[k]*gamma[j] - s1 - xhat[k]*s2)
			}
		}
		dgamma := make([]float32, d)
		dbeta := make([]float32, d)
		for j := range sg {
			dgamma[j], dbeta[j] = float32(sg[j]), float32(sb[j])
		}
		return []*tensor.Tensor{tensor.Wrap(dx, s...), tensor.Wrap(dgamma, d), tensor.Wrap(dbeta, d)}
	})
}
