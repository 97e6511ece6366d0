package nn_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/nn"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	g := smallGraph(t)
	x := tensor.NewRNG(1).Normal(0, 1, 7, 5)
	nn.Seed(1)
	a := nn.NewGAT(5, 4, 2, 3)
	nn.Seed(2)
	b := nn.NewGAT(5, 4, 2, 3)
	a.Eval()
	b.Eval()
	path := filepath.Join(t.TempDir(), "gat.safetensors")
	if err := nn.SaveFile(path, a); err != nil {
		t.Fatalf("SaveFile: %v", err)
	}
	if err := nn.LoadFile(path, b); err != nil {
		t.Fatalf("LoadFile: %v", err)
	}
	ya, yb := a.Forward(g, x), b.Forward(g, x)
	if !tensor.AllClose(ya, yb, 0, 0) {
		t.Errorf("Forward after Load = %v, want %v", yb, ya)
	}
}

// TestSaveFormat reads a saved file as a safetensors reader would.
func TestSaveFormat(t *testing.T) {
	w := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := tensor.FromSlice([]float32{-1.5}, 1)
	var buf bytes.Buffer
	if err := nn.SaveParams(&buf, []*tensor.Tensor{w, b}); err != nil {
		t.Fatalf("SaveParams: %v", err)
	}
	raw := buf.Bytes()
	n := binary.LittleEndian.Uint64(raw[:8])
	if (8+n)%8 != 0 {
		t.Errorf("header length %d: data does not start 8-byte aligned", n)
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(raw[8:8+n], &header); err != nil {
		t.Fatalf("header %q: %v", raw[8:8+n], err)
	}
	var info struct {
		Dtype       string   `json:"dtype"`
		Shape       []int    `json:"shape"`
		DataOffsets [2]int64 `json:"data_offsets"`
	}
	if err := json.Unmarshal(header["1"], &info); err != nil {
		t.Fatalf("tensor 1: %v", err)
	}
	if info.Dtype != "F32" || len(info.Shape) != 1 || info.Shape[0] != 1 || info.DataOffsets != [2]int64{24, 28} {
		t.Errorf("tensor 1 = %+v, want F32 [1] at [24 28]", info)
	}
	data := raw[8+n:]
	if got := math.Float32frombits(binary.LittleEndian.Uint32(data[24:])); got != -1.5 {
		t.Errorf("tensor 1 data = %g, want -1.5", got)
	}
	if len(data) != 28 {
		t.Errorf("data section of %d bytes, want 28", len(data))
	}
}

func TestLoadErrors(t *testing.T) {
	var good bytes.Buffer
	nn.Seed(1)
	if err := nn.Save(&good, nn.NewLinear(4, 3)); err != nil {
		t.Fatalf("Save: %v", err)
	}
	tests := []struct {
		name  string
		file  []byte
		model nn.Module
		want  error
	}{
		{"shape", good.Bytes(), nn.NewLinear(4, 2), nn.ErrMismatch},
		{"count", good.Bytes(), nn.NewLinear(4, 3).NoBias(), nn.ErrMismatch},
		{"empty", nil, nn.NewLinear(4, 3), nn.ErrFormat},
		{"truncated", good.Bytes()[:good.Len()-4], nn.NewLinear(4, 3), nn.ErrFormat},
		{"garbage", []byte("\x05\x00\x00\x00\x00\x00\x00\x00hello"), nn.NewLinear(4, 3), nn.ErrFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.model.Params()[0].Clone()
			err := nn.Load(bytes.NewReader(tt.file), tt.model)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Load(%s) = %v, want %v", tt.name, err, tt.want)
			}
			if tt.want == nn.ErrMismatch && !tensor.AllClose(before, tt.model.Params()[0], 0, 0) {
				t.Errorf("Load(%s) changed the model before failing", tt.name)
			}
		})
	}
}

func TestOptimizerSteps(t *testing.T) {
	tests := []struct {
		name string
		opt  func(p *tensor.Tensor) nn.Optimizer
		want []float32 // p after two steps from p = [1, -2] with grad = p
	}{
		// SGD: p ← p − 0.1·p twice.
		{"SGD", func(p *tensor.Tensor) nn.Optimizer { return nn.NewSGD([]*tensor.Tensor{p}, 0.1, 0, 0) }, []float32{0.81, -1.62}},
		// momentum 0.9: buf1 = g1, p1 = 0.9·p0; buf2 = 0.9·g1 + g2 = 0.9·p0 + 0.9·p0.
		{"SGD/momentum", func(p *tensor.Tensor) nn.Optimizer { return nn.NewSGD([]*tensor.Tensor{p}, 0.1, 0.9, 0) }, []float32{0.72, -1.44}},
		// weight decay 1 doubles the gradient.
		{"SGD/decay", func(p *tensor.Tensor) nn.Optimizer { return nn.NewSGD([]*tensor.Tensor{p}, 0.1, 0, 1) }, []float32{0.64, -1.28}},
		{"Adam", func(p *tensor.Tensor) nn.Optimizer { return nn.NewAdam([]*tensor.Tensor{p}, 0.1, 0) }, adamRef(0.1, 0, false)},
		{"Adam/decay", func(p *tensor.Tensor) nn.Optimizer { return nn.NewAdam([]*tensor.Tensor{p}, 0.1, 0.5) }, adamRef(0.1, 0.5, false)},
		{"AdamW", func(p *tensor.Tensor) nn.Optimizer { return nn.NewAdamW([]*tensor.Tensor{p}, 0.1, 0.5) }, adamRef(0.1, 0.5, true)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tensor.FromSlice([]float32{1, -2}, 2).SetRequiresGrad(true)
			opt := tt.opt(p)
			for i := 0; i < 2; i++ {
				opt.ZeroGrad()
				p.Mul(p).MulScalar(0.5).Sum().Backward() // grad = p
				opt.Step()
			}
			want := tensor.FromSlice(tt.want, 2)
			if !tensor.AllClose(p, want, 1e-4, 1e-5) {
				t.Errorf("%s: p after two steps = %v, want %v", tt.name, p, want)
			}
		})
	}
}

// adamRef runs two steps of Adam (as written in Kingma and Ba, with L2 or
// decoupled weight decay) in float64 from p = [1, -2] with grad = p.
func adamRef(lr, wd float64, decoupled bool) []float32 {
	p := []float64{1, -2}
	m, v := make([]float64, 2), make([]float64, 2)
	for step := 1; step <= 2; step++ {
		for i := range p {
			g := p[i]
			if decoupled {
				p[i] -= lr * wd * p[i]
			} else {
				g += wd * p[i]
			}
			m[i] = 0.9*m[i] + 0.1*g
			v[i] = 0.999*v[i] + 0.001*g*g
			mh := m[i] / (1 - math.Pow(0.9, float64(step)))
			vh := v[i] / (1 - math.Pow(0.999, float64(step)))
			p[i] -= lr * mh / (math.Sqrt(vh) + 1e-8)
		}
	}
	return []float32{float32(p[0]), float32(p[1])}
}

func TestClipGradNorm(t *testing.T) {
	a := tensor.FromSlice([]float32{3}, 1)
	b := tensor.FromSlice([]float32{4}, 1)
	a.SetGrad(tensor.FromSlice([]float32{3}, 1))
	b.SetGrad(tensor.FromSlice([]float32{4}, 1))
	if n := nn.ClipGradNorm([]*tensor.Tensor{a, b}, 1); math.Abs(n-5) > 1e-6 {
		t.Errorf("ClipGradNorm = %g, want 5", n)
	}
	if g := a.Grad().Item(); math.Abs(float64(g)-0.6) > 1e-5 {
		t.Errorf("clipped grad = %g, want 0.6", g)
	}
}

// TestSeedDeterminism trains twice under one seed and expects the same
// parameters bit for bit.
func TestSeedDeterminism(t *testing.T) {
	g := smallGraph(t)
	x := tensor.NewRNG(1).Normal(0, 1, 7, 5)
	y := []int{0, 1, 2, 0, 1, 2, 0}
	run := func() []float32 {
		nn.Seed(42)
		m := nn.NewGAT(5, 4, 2, 3)
		opt := nn.NewAdam(m.Params(), 0.01, 5e-4)
		for i := 0; i < 5; i++ {
			opt.ZeroGrad()
			nn.CrossEntropy(m.Forward(g, x), y, nil).Backward()
			opt.Step()
		}
		return m.Conv2.W.Clone().Data()
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("weight %d = %g and %g in two seeded runs", i, a[i], b[i])
		}
	}
}

// scale is a layer defined outside the package, as a notebook cell would
// define one: Sequential must collect its parameter and train it.
type scale struct{ w *tensor.Tensor }

func (s *scale) Forward(x *tensor.Tensor) *tensor.Tensor { return x.Mul(s.w) }
func (s *scale) Params() []*tensor.Tensor                { return []*tensor.Tensor{s.w} }
func (s *scale) SetTraining(bool)                        {}

func TestCustomLayerTrains(t *testing.T) {
	nn.Seed(1)
	s := &scale{w: tensor.FromSlice([]float32{0.1}, 1).SetRequiresGrad(true)}
	model := nn.NewSequential(nn.NewLinear(2, 2), s)
	if got := len(model.Params()); got != 3 {
		t.Fatalf("len(Params()) = %d, want 3", got)
	}
	x := tensor.FromSlice([]float32{1, 2, -1, 0.5}, 2, 2)
	y := tensor.FromSlice([]float32{3, -1, 0, 2}, 2, 2)
	opt := nn.NewAdam(model.Params(), 0.05, 0)
	first := 0.0
	var last float64
	for i := 0; i < 300; i++ {
		loss := nn.MSE(model.Forward(x), y)
		if i == 0 {
			first = float64(loss.Item())
		}
		last = float64(loss.Item())
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	if s.w.Item() == 0.1 {
		t.Errorf("custom layer's weight did not change")
	}
	if last > first/100 {
		t.Errorf("MSE went from %g to %g, want a hundredfold drop", first, last)
	}
}

func TestModes(t *testing.T) {
	nn.Seed(1)
	seq := nn.NewSequential(nn.NewLinear(3, 3), nn.NewDropout(0.5), nn.NewBatchNorm1D(3))
	gcn := nn.NewGCN(3, 4, 2)
	gin := nn.NewGIN(3, 4, 2, 2)
	for _, on := range []bool{false, true} {
		seq.SetTraining(on)
		gcn.SetTraining(on)
		gin.SetTraining(on)
		for i, l := range seq.Layers {
			if got := l.(interface{ Training() bool }).Training(); got != on {
				t.Errorf("layer %d Training() = %t after SetTraining(%t)", i, got, on)
			}
		}
		if gcn.Conv1.Training() != on || gin.Convs[1].MLP.(*nn.Sequential).Layers[0].(*nn.Linear).Training() != on {
			t.Errorf("SetTraining(%t) did not reach the GNN layers", on)
		}
	}
	x := tensor.Ones(4, 3)
	d := nn.NewDropout(0.5)
	d.Eval()
	if y := d.Forward(x); !tensor.AllClose(y, x, 0, 0) {
		t.Errorf("Dropout in eval mode = %v, want its input", y)
	}
}

func TestSparseDropout(t *testing.T) {
	x := tensor.SparseFromCSR(2, 4, []int{0, 2, 3}, []int{0, 3, 1}, []float32{1, 2, 3})
	nn.Seed(5)
	d := nn.NewDropout(0.5)
	y := d.Forward(x)
	if !y.IsSparse() {
		t.Fatalf("Dropout of a sparse tensor is dense")
	}
	_, _, v := y.CSR()
	for i, val := range v {
		if orig := []float32{1, 2, 3}[i]; val != 0 && val != 2*orig {
			t.Errorf("value %d = %g, want 0 or %g", i, val, 2*orig)
		}
	}
}

func TestBatchNormRunningStats(t *testing.T) {
	bn := nn.NewBatchNorm1D(2)
	bn.Momentum = 1 // running stats become the last batch's
	x := tensor.FromSlice([]float32{1, 10, 3, 20, 5, 30}, 3, 2)
	y := bn.Forward(x)
	if m := y.MeanAxis(0, false); !tensor.AllClose(m, tensor.Zeros(2), 0, 1e-5) {
		t.Errorf("training output mean = %v, want 0", m)
	}
	want := tensor.FromSlice([]float32{3, 20}, 2)
	if !tensor.AllClose(bn.RunningMean, want, 1e-6, 0) {
		t.Errorf("RunningMean = %v, want %v", bn.RunningMean, want)
	}
	if wantVar := tensor.FromSlice([]float32{4, 100}, 2); !tensor.AllClose(bn.RunningVar, wantVar, 1e-5, 0) {
		t.Errorf("RunningVar = %v, want %v (unbiased)", bn.RunningVar, wantVar)
	}
	bn.Eval()
	got := bn.Forward(tensor.FromSlice([]float32{5, 30}, 1, 2))
	wantEval := tensor.FromSlice([]float32{float32(2 / math.Sqrt(4+1e-5)), float32(10 / math.Sqrt(100+1e-5))}, 1, 2)
	if !tensor.AllClose(got, wantEval, 1e-5, 0) {
		t.Errorf("eval BatchNorm = %v, want %v", got, wantEval)
	}
}

func TestAccuracy(t *testing.T) {
	logits := tensor.FromSlice([]float32{0.9, 0.1, 0.2, 0.8, 0.6, 0.4}, 3, 2)
	labels := []int{0, 1, 1}
	tests := []struct {
		idx  []int
		want float64
	}{
		{nil, 2.0 / 3},
		{[]int{0, 1}, 1},
		{[]int{2}, 0},
		{[]int{}, 0},
	}
	for _, tt := range tests {
		if got := nn.Accuracy(logits, labels, tt.idx); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Accuracy(idx %v) = %g, want %g", tt.idx, got, tt.want)
		}
	}
}

func TestShapeErrors(t *testing.T) {
	g := smallGraph(t)
	tests := []struct {
		name string
		f    func()
	}{
		{"Linear", func() { nn.NewLinear(3, 2).Forward(tensor.Zeros(2, 4)) }},
		{"GCNConv rows", func() { nn.NewGCNConv(3, 2).Forward(g, tensor.Zeros(5, 3)) }},
		{"BatchNorm2D on 2-D", func() { nn.NewBatchNorm2D(3).Forward(tensor.Zeros(4, 3)) }},
		{"LayerNorm width", func() { nn.NewLayerNorm(3).Forward(tensor.Zeros(4, 2)) }},
		{"SpMM sparse", func() { nn.SpMM(g, tensor.SparseFromDense(tensor.Ones(7, 2))) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				err, ok := r.(error)
				var se *tensor.ShapeError
				if !ok || !errors.As(err, &se) {
					t.Errorf("%s: panic %v, want a *tensor.ShapeError", tt.name, r)
				}
			}()
			tt.f()
		})
	}
}
