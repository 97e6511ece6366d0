package devicetest

import "github.com/gnnlab/gnnlab/gnnlib/tensor"

// ReLUDropoutGradColSumUnbias is gnnlib/nn's ReLUDropoutGradUnbiasOps:
// ReLUDropoutGradColSum(g, y, p) and UnbiasAct(y, b, true, p) in one call,
// with their values.
func (f *Fake) ReLUDropoutGradColSumUnbias(g, y, b *tensor.Tensor, p float32) (gx, colSum, x tensor.Storage, err error) {
	f.count("ReLUDropoutGradColSumUnbias")
	gx, colSum, err = f.ReLUDropoutGradColSum(g, y, p)
	if err != nil {
		return nil, nil, nil, err
	}
	x, err = f.UnbiasAct(y, b, true, p)
	return gx, colSum, x, err
}
