package devicetest

import (
	"fmt"
	"math"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/graph"
	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// RoundHalf implements tensor.HalfBackend: the Fake runs Autocast with the
// CPU's rounding (gnnlib/internal/half) on its host memory.
func (f *Fake) RoundHalf(s tensor.Storage, n int, dt tensor.DType) error {
	f.count("RoundHalf")
	fs, ok := s.(*fakeStore)
	if !ok || fs.dev != f {
		return fmt.Errorf("devicetest.Fake: RoundHalf of storage %T not on this device", s)
	}
	if fs.freed {
		panic("devicetest.Fake: RoundHalf of freed storage")
	}
	if n > len(fs.data) {
		return fmt.Errorf("devicetest.Fake: RoundHalf of %d values in storage of %d", n, len(fs.data))
	}
	if dt != tensor.BFloat16 && dt != tensor.Float16 {
		return fmt.Errorf("devicetest.Fake: RoundHalf(%v): %w", dt, tensor.ErrDType)
	}
	for i, v := range fs.data[:n] {
		fs.data[i] = dt.Round(v)
	}
	return nil
}

// ToHalf implements tensor.HalfStorer: the Fake keeps the outputs of the
// ops run under Autocast in storage of the 16-bit format (both BFloat16
// and Float16), whose values are rounded and which its memory ledger
// charges two bytes a value, as gnnlib/cuda's bfloat16 storage takes.
func (f *Fake) ToHalf(t *tensor.Tensor, dt tensor.DType) (tensor.Storage, error) {
	if dt != tensor.BFloat16 && dt != tensor.Float16 {
		return nil, fmt.Errorf("devicetest.Fake: ToHalf(%v): %w", dt, tensor.ErrDType)
	}
	f.count("ToHalf")
	src := f.host(t).Data()
	out := make([]float32, len(src))
	for i, v := range src {
		out[i] = dt.Round(v)
	}
	return f.newStoreOf(out, dt), nil
}

// CheckAutocast trains the GCN and GAT of TrainCases for three steps with
// the forward pass under tensor.Autocast (BFloat16, and Float16 with an
// nn.GradScaler) on the CPU, where Autocast is the emulation, and on dev,
// from the same parameters, and compares losses, gradients and
// parameters within tol (relative to the largest value, as RelErr). The
// two differ by a few 16-bit ulps (2⁻⁸ relative for BF16): the device's
// kernels sum in another order, which can move a value across a rounding
// boundary, and a fused device op (a GCN layer's SpMM, bias and ReLU)
// rounds once where the CPU's chain of ops rounds after each. It also
// checks that the device's logits hold only 16-bit values and that its
// parameters stay float32 (master weights).
func CheckAutocast(t *testing.T, dev tensor.Backend, tol float64) {
	const n, feats, classes = 600, 32, 8
	g, xs, y, err := graph.SBM(graph.SBMOptions{Sizes: []int{200, 200, 200}, PIn: 0.04, POut: 0.005, Features: feats, Signal: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		y[i] = (y[i]*3 + i) % classes
	}
	var train []int
	for v := 0; v < n; v += 3 {
		train = append(train, v)
	}
	x := tensor.Wrap(xs, n, feats)
	xd := x.To(dev)
	var cases []TrainCase
	for _, c := range TrainCases() {
		if c.Name == "GCN" || c.Name == "GAT" {
			cases = append(cases, c)
		}
	}
	for _, dt := range []tensor.DType{tensor.BFloat16, tensor.Float16} {
		for _, c := range cases {
			t.Run(c.Name+" "+dt.String(), func(t *testing.T) {
				nn.Seed(11)
				cpu := c.Build()
				nn.Seed(11)
				gpu := c.Build()
				nn.To(gpu, dev)
				pc, pg := cpu.Params(), gpu.Params()
				// SGD, not Adam: Adam's m/√v turns a one-ulp difference in a
				// gradient near zero into a full step of either sign.
				optC, optG := nn.NewSGD(pc, 0.05, 0.9, 5e-4), nn.NewSGD(pg, 0.05, 0.9, 5e-4)
				sc, sg := nn.NewGradScaler(), nn.NewGradScaler()
				sc.SetScale(1024)
				sg.SetScale(1024)
				for step := range 3 {
					var lc, lg, outG *tensor.Tensor
					tensor.Autocast(dt, func() {
						lc = nn.CrossEntropy(c.Forward(cpu, g, x), y, train)
						outG = c.Forward(gpu, g, xd)
						lg = nn.CrossEntropy(outG, y, train)
					})
					for i, v := range outG.CPU().Data() {
						if dt.Round(v) != v {
							t.Fatalf("step %d: device logit %d = %v is not a %v value", step, i, v, dt)
						}
					}
					optC.ZeroGrad()
					optG.ZeroGrad()
					if dt == tensor.Float16 {
						sc.Scale(lc).Backward()
						sg.Scale(lg).Backward()
						if okC, okG := sc.Step(optC, pc), sg.Step(optG, pg); okC != okG {
							t.Fatalf("step %d: GradScaler stepped on the CPU %v, on the device %v", step, okC, okG)
						}
						sc.Update()
						sg.Update()
					} else {
						lc.Backward()
						lg.Backward()
					}
					if a, b := lg.Item(), lc.Item(); math.Abs(float64(a-b)) > tol*(1+math.Abs(float64(b))) {
						t.Errorf("step %d: loss %g on the device, %g on the CPU", step, a, b)
					}
					for i := range pc {
						agree(t, fmt.Sprintf("step %d: gradient of parameter %d %v", step, i, pc[i].Shape()), pg[i].Grad(), pc[i].Grad(), tol)
					}
					if dt != tensor.Float16 {
						optC.Step()
						optG.Step()
					}
					for i := range pc {
						agree(t, fmt.Sprintf("step %d: parameter %d %v", step, i, pc[i].Shape()), pg[i], pc[i], tol)
					}
				}
				master := false
				for _, p := range pg {
					for _, v := range p.CPU().Data() {
						if dt.Round(v) != v {
							master = true
						}
					}
				}
				if !master {
					t.Errorf("every parameter value on the device is a %v value: the master weights were rounded", dt)
				}
			})
		}
	}
}
