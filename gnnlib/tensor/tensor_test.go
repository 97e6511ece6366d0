package tensor

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

func f32(v ...float32) []float32 { return v }

// checkTensor fails t when got differs from want in shape or beyond 1e-5.
func checkTensor(t *testing.T, name string, got *Tensor, wantData []float32, wantShape ...int) {
	t.Helper()
	want := &Tensor{data: wantData, shape: wantShape} // wantShape may be [] (a scalar)
	if wantShape == nil {
		want.shape = []int{}
	}
	if numel(want.shape) != len(wantData) {
		t.Fatalf("%s: bad test: %d values for shape %v", name, len(wantData), wantShape)
	}
	if !AllClose(got, want, 1e-5, 1e-5) {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

func TestOps(t *testing.T) {
	a := FromSlice(f32(1, 2, 3, 4, 5, 6), 2, 3)
	b := FromSlice(f32(10, 20, 30), 3)
	col := FromSlice(f32(1, -1), 2, 1)
	tests := []struct {
		name  string
		got   *Tensor
		data  []float32
		shape []int
	}{
		{"Add", a.Add(a), f32(2, 4, 6, 8, 10, 12), []int{2, 3}},
		{"AddRow", a.Add(b), f32(11, 22, 33, 14, 25, 36), []int{2, 3}},
		{"AddCol", a.Add(col), f32(2, 3, 4, 3, 4, 5), []int{2, 3}},
		{"SubRowFromCol", col.Sub(b), f32(-9, -19, -29, -11, -21, -31), []int{2, 3}},
		{"MulScalarTensor", a.Mul(Scalar(2)), f32(2, 4, 6, 8, 10, 12), []int{2, 3}},
		{"Div", b.Div(FromSlice(f32(2, 4, 5))), f32(5, 5, 6), []int{3}},
		{"AddScalar", b.AddScalar(1), f32(11, 21, 31), []int{3}},
		{"MulScalar", b.MulScalar(0.5), f32(5, 10, 15), []int{3}},
		{"Neg", b.Neg(), f32(-10, -20, -30), []int{3}},
		{"Pow", FromSlice(f32(2, 3)).Pow(2), f32(4, 9), []int{2}},
		{"Exp", FromSlice(f32(0, 1)).Exp(), f32(1, float32(math.E)), []int{2}},
		{"Log", FromSlice(f32(1, float32(math.E))).Log(), f32(0, 1), []int{2}},
		{"Sqrt", FromSlice(f32(4, 9)).Sqrt(), f32(2, 3), []int{2}},
		{"Abs", FromSlice(f32(-2, 3)).Abs(), f32(2, 3), []int{2}},
		{"Clamp", FromSlice(f32(-2, 0.5, 3)).Clamp(0, 1), f32(0, 0.5, 1), []int{3}},
		{"ReLU", FromSlice(f32(-1, 0, 2)).ReLU(), f32(0, 0, 2), []int{3}},
		{"LeakyReLU", FromSlice(f32(-1, 2)).LeakyReLU(0.1), f32(-0.1, 2), []int{2}},
		{"ELU", FromSlice(f32(-1, 2)).ELU(1), f32(float32(math.Expm1(-1)), 2), []int{2}},
		{"Sigmoid", FromSlice(f32(0, -1000, 1000)).Sigmoid(), f32(0.5, 0, 1), []int{3}},
		{"Tanh", FromSlice(f32(0)).Tanh(), f32(0), []int{1}},
		{"GELU", FromSlice(f32(0, 1)).GELU(), f32(0, 0.8411920), []int{2}},
		{"Sum", a.Sum(), f32(21), []int{}},
		{"Mean", a.Mean(), f32(3.5), []int{}},
		{"SumAxis0", a.SumAxis(0, false), f32(5, 7, 9), []int{3}},
		{"SumAxis1Keep", a.SumAxis(-1, true), f32(6, 15), []int{2, 1}},
		{"MeanAxis1", a.MeanAxis(1, false), f32(2, 5), []int{2}},
		{"Max", FromSlice(f32(1, 5, 2, 7, 0, 3), 2, 3).Max(1, false), f32(5, 7), []int{2}},
		{"Min", FromSlice(f32(1, 5, 2, 7, 0, 3), 2, 3).Min(0, true), f32(1, 0, 2), []int{1, 3}},
		{"Softmax", FromSlice(f32(0, 0, 1000, 1000)).Softmax(0), f32(0, 0, 0.5, 0.5), []int{4}},
		{"LogSoftmax", FromSlice(f32(1, 1), 1, 2).LogSoftmax(1), f32(-float32(math.Ln2), -float32(math.Ln2)), []int{1, 2}},
		{"MatMul", a.MatMul(FromSlice(f32(1, 0, 0, 1, 1, 1), 3, 2)), f32(4, 5, 10, 11), []int{2, 2}},
		{"Transpose", a.T(), f32(1, 4, 2, 5, 3, 6), []int{3, 2}},
		{"Permute", Arange(0, 6, 1).Reshape(1, 2, 3).Permute(2, 0, 1), f32(0, 3, 1, 4, 2, 5), []int{3, 1, 2}},
		{"Reshape", a.Reshape(-1, 2), f32(1, 2, 3, 4, 5, 6), []int{3, 2}},
		{"Flatten", a.Flatten(), f32(1, 2, 3, 4, 5, 6), []int{6}},
		{"IndexSelect", a.IndexSelect([]int{1, 1, 0}), f32(4, 5, 6, 4, 5, 6, 1, 2, 3), []int{3, 3}},
		{"IndexAdd", Zeros(2, 2).IndexAdd([]int{1, 1, 0}, Ones(3, 2)), f32(1, 1, 2, 2), []int{2, 2}},
		{"ScatterAddRows", ScatterAddRows(a, []int{2, 2}, 3), f32(0, 0, 0, 0, 0, 0, 5, 7, 9), []int{3, 3}},
		{"Concat0", Concat(0, a, b.Reshape(1, 3)), f32(1, 2, 3, 4, 5, 6, 10, 20, 30), []int{3, 3}},
		{"Concat1", Concat(1, a, col), f32(1, 2, 3, 1, 4, 5, 6, -1), []int{2, 4}},
		{"Narrow", a.Narrow(1, 1, 2), f32(2, 3, 5, 6), []int{2, 2}},
		{"MaxPool2D", Arange(0, 16, 1).Reshape(1, 1, 4, 4).MaxPool2D(2, 2), f32(5, 7, 13, 15), []int{1, 1, 2, 2}},
		{"AvgPool2D", Arange(0, 16, 1).Reshape(1, 1, 4, 4).AvgPool2D(2, 2), f32(2.5, 4.5, 10.5, 12.5), []int{1, 1, 2, 2}},
		{"Conv2D", Conv2D(Arange(0, 9, 1).Reshape(1, 1, 3, 3), Ones(1, 1, 2, 2), FromSlice(f32(1)), 1, 0),
			f32(9, 13, 21, 25), []int{1, 1, 2, 2}},
		{"Conv2DPad", Conv2D(Ones(1, 1, 2, 2), Ones(1, 1, 3, 3), nil, 1, 1), f32(4, 4, 4, 4), []int{1, 1, 2, 2}},
		{"MSE", MSE(FromSlice(f32(1, 2)), FromSlice(f32(3, 2))), f32(2), []int{}},
		{"CrossEntropyUniform", CrossEntropy(Zeros(3, 4), []int{0, 1, 2}, nil), f32(float32(math.Log(4))), []int{}},
		{"CrossEntropyRows", CrossEntropy(FromSlice(f32(0, 0, 1000, 0), 2, 2), []int{1, 0}, []int{1}), f32(0), []int{}},
		{"NLL", NLL(FromSlice(f32(-1, -2, -3, -4), 2, 2), []int{1, 0}, nil), f32(2.5), []int{}},
		{"BCEWithLogits", BCEWithLogits(Zeros(2), FromSlice(f32(0, 1))), f32(float32(math.Ln2)), []int{}},
		{"Eye", Eye(2), f32(1, 0, 0, 1), []int{2, 2}},
		{"Arange", Arange(1, 2, 0.25), f32(1, 1.25, 1.5, 1.75), []int{4}},
		{"Full", Full(7, 2), f32(7, 7), []int{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkTensor(t, tt.name, tt.got, tt.data, tt.shape...)
		})
	}
}

func TestSplit(t *testing.T) {
	parts := Arange(0, 6, 1).Reshape(3, 2).Split(0, 1, 2)
	if len(parts) != 2 {
		t.Fatalf("Split returned %d parts, want 2", len(parts))
	}
	checkTensor(t, "Split[0]", parts[0], f32(0, 1), 1, 2)
	checkTensor(t, "Split[1]", parts[1], f32(2, 3, 4, 5), 2, 2)
}

func TestArgMax(t *testing.T) {
	x := FromSlice(f32(1, 9, 3, 7, 2, 7), 2, 3)
	tests := []struct {
		name string
		got  []int
		want []int
	}{
		{"ArgMax(1)", x.ArgMax(1), []int{1, 0}},
		{"ArgMax(0)", x.ArgMax(0), []int{1, 0, 1}},
		{"ArgMin(1)", x.ArgMin(-1), []int{0, 1}},
	}
	for _, tt := range tests {
		if fmt.Sprint(tt.got) != fmt.Sprint(tt.want) {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestShapeErrors checks that mismatched operands panic with *ShapeError.
func TestShapeErrors(t *testing.T) {
	a, b := Zeros(2, 3), Zeros(4, 5)
	tests := []struct {
		name string
		f    func()
	}{
		{"Add", func() { a.Add(b) }},
		{"MatMul", func() { a.MatMul(b) }},
		{"Reshape", func() { a.Reshape(4, 2) }},
		{"Concat", func() { Concat(0, a, b) }},
		{"FromSlice", func() { FromSlice(f32(1, 2, 3), 2, 2) }},
		{"Axis", func() { a.SumAxis(2, false) }},
		{"Conv2D", func() { Conv2D(Zeros(1, 2, 4, 4), Zeros(1, 3, 2, 2), nil, 1, 0) }},
		{"Backward", func() { a.SetRequiresGrad(true).MulScalar(2).Backward() }},
		{"MSE", func() { MSE(a, b) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := catch(tt.f)
			var se *ShapeError
			if !errors.As(err, &se) {
				t.Fatalf("%s panicked with %v, want a *ShapeError", tt.name, err)
			}
			if se.Op == "" || se.A == nil {
				t.Errorf("%s: ShapeError %+v lacks the op or a shape", tt.name, se)
			}
		})
	}
	err := catch(func() { a.Add(b) })
	if got, want := err.Error(), "tensor: Add: shapes do not broadcast: [2 3] and [4 5]"; got != want {
		t.Errorf("Add error = %q, want %q", got, want)
	}
}

// catch runs f and returns its panic value as an error (nil if none).
func catch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("panic: %v", r)
			}
		}
	}()
	f()
	return nil
}

func TestIndexErrors(t *testing.T) {
	x := Zeros(3, 2)
	tests := []struct {
		name string
		f    func()
	}{
		{"IndexSelect", func() { x.IndexSelect([]int{3}) }},
		{"ScatterAddRows", func() { ScatterAddRows(x, []int{0, 1, 5}, 4) }},
		{"CrossEntropyLabel", func() { CrossEntropy(x, []int{0, 2, 0}, nil) }},
		{"CrossEntropyRow", func() { CrossEntropy(x, []int{0, 1, 0}, []int{-1}) }},
	}
	for _, tt := range tests {
		if err := catch(tt.f); !errors.Is(err, ErrIndex) {
			t.Errorf("%s panicked with %v, want ErrIndex", tt.name, err)
		}
	}
}

func TestSparse(t *testing.T) {
	rng := NewRNG(5)
	dense := rng.Uniform(0, 1, 37, 29)
	for i, v := range dense.data { // about 10% non-zero
		if v < 0.9 {
			dense.data[i] = 0
		}
	}
	sp := SparseFromDense(dense)
	if !sp.IsSparse() || dense.IsSparse() {
		t.Fatalf("IsSparse: sparse %v, dense %v; want true, false", sp.IsSparse(), dense.IsSparse())
	}
	if !AllClose(sp.ToDense(), dense, 0, 0) {
		t.Errorf("ToDense(SparseFromDense(x)) differs from x")
	}
	w := rng.Normal(0, 1, 29, 7)
	if got, want := sp.MatMul(w), dense.MatMul(w); !AllClose(got, want, 1e-5, 1e-5) {
		t.Errorf("sparse MatMul = %v, want %v", got, want)
	}
	rows := []int{3, 0, 36, 3}
	if got, want := sp.IndexSelect(rows).ToDense(), dense.IndexSelect(rows); !AllClose(got, want, 0, 0) {
		t.Errorf("sparse IndexSelect = %v, want %v", got, want)
	}
	if got, want := sp.At(1, 2), dense.At(1, 2); got != want {
		t.Errorf("sparse At(1, 2) = %v, want %v", got, want)
	}
	// gradient to the dense side equals the dense computation's
	w.SetRequiresGrad(true)
	sp.MatMul(w).Square().Sum().Backward()
	gs := w.Grad().Clone()
	w.ZeroGrad()
	dense.MatMul(w).Square().Sum().Backward()
	if !AllClose(gs, w.Grad(), 1e-4, 1e-4) {
		t.Errorf("sparse MatMul gradient = %v, want %v", gs, w.Grad())
	}
	if err := catch(func() { sp.ReLU() }); !errors.Is(err, ErrSparse) {
		t.Errorf("ReLU(sparse) panicked with %v, want ErrSparse", err)
	}
	var se *ShapeError
	if err := catch(func() { SparseFromCSR(2, 2, []int{0, 1}, []int{0}, f32(1)) }); !errors.As(err, &se) {
		t.Errorf("SparseFromCSR(bad indptr) panicked with %v, want *ShapeError", err)
	}
}

// TestMatMulSizes compares the blocked kernel with a naive product on sizes
// around the block edges, transposed operands included (via the gradients).
func TestMatMulSizes(t *testing.T) {
	rng := NewRNG(11)
	for _, sz := range [][3]int{{1, 1, 1}, {3, 5, 2}, {4, 4, 4}, {17, 33, 9}, {65, 300, 70}, {130, 257, 513}} {
		m, k, n := sz[0], sz[1], sz[2]
		a, b := rng.Normal(0, 1, m, k), rng.Normal(0, 1, k, n)
		want := naiveMatMul(a, b)
		if got := a.MatMul(b); !AllClose(got, want, 1e-4, 1e-4) {
			t.Errorf("MatMul %dx%d·%dx%d differs from the naive product", m, k, k, n)
		}
	}
}

func naiveMatMul(a, b *Tensor) *Tensor {
	m, k, n := a.shape[0], a.shape[1], b.shape[1]
	c := Zeros(m, n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				s += float64(a.data[i*k+p]) * float64(b.data[p*n+j])
			}
			c.data[i*n+j] = float32(s)
		}
	}
	return c
}

// TestThreadsDeterminism checks that results do not depend on Threads().
func TestThreadsDeterminism(t *testing.T) {
	defer SetThreads(SetThreads(1))
	run := func() []*Tensor {
		a, b := Randn(1, 200, 150), Randn(2, 150, 90).SetRequiresGrad(true)
		x := Randn(3, 8, 3, 12, 12).SetRequiresGrad(true)
		w := Randn(4, 4, 3, 3, 3).SetRequiresGrad(true)
		y := a.MatMul(b).ReLU().Sum().Add(Conv2D(x, w, nil, 1, 1).Square().Mean())
		y.Backward()
		return []*Tensor{y, b.Grad(), x.Grad(), w.Grad()}
	}
	one := run()
	SetThreads(4)
	four := run()
	for i := range one {
		if !AllClose(one[i], four[i], 0, 0) {
			t.Errorf("result %d with 1 thread differs from 4 threads", i)
		}
	}
}

func TestSeedDeterminism(t *testing.T) {
	a, b := NewRNG(42).Normal(0, 1, 100), NewRNG(42).Normal(0, 1, 100)
	if !AllClose(a, b, 0, 0) {
		t.Errorf("Normal under one seed differs between runs")
	}
	if c := NewRNG(43).Normal(0, 1, 100); AllClose(a, c, 0, 0) {
		t.Errorf("Normal under seeds 42 and 43 is equal")
	}
	u := NewRNG(1).Uniform(-2, 3, 1000)
	for _, v := range u.Data() {
		if v < -2 || v >= 3 {
			t.Fatalf("Uniform(-2, 3) produced %v", v)
		}
	}
	d1 := Ones(50).Dropout(0.5, NewRNG(9), true)
	d2 := Ones(50).Dropout(0.5, NewRNG(9), true)
	if !AllClose(d1, d2, 0, 0) {
		t.Errorf("Dropout under one seed differs between runs")
	}
	if d := Ones(5).Dropout(0.5, NewRNG(9), false); !AllClose(d, Ones(5), 0, 0) {
		t.Errorf("Dropout(training=false) = %v, want ones", d)
	}
}

func TestAutograd(t *testing.T) {
	w := FromSlice(f32(1, 2, 3)).SetRequiresGrad(true)
	// y = sum(w*w) + sum(w): dy/dw = 2w + 1; w is reached by two paths
	w.Mul(w).Sum().Add(w.Sum()).Backward()
	checkTensor(t, "Grad", w.Grad(), f32(3, 5, 7), 3)
	// a second Backward accumulates
	w.Sum().Backward()
	checkTensor(t, "accumulated Grad", w.Grad(), f32(4, 6, 8), 3)
	w.ZeroGrad()
	if w.Grad() != nil {
		t.Errorf("Grad after ZeroGrad = %v, want nil", w.Grad())
	}
	var y *Tensor
	NoGrad(func() { y = w.MulScalar(2) })
	if y.RequiresGrad() || GradEnabled() != true {
		t.Errorf("NoGrad: output RequiresGrad = %v, GradEnabled after = %v; want false, true", y.RequiresGrad(), GradEnabled())
	}
	restore := DisableGrad()
	if GradEnabled() {
		t.Errorf("GradEnabled() inside DisableGrad = true")
	}
	restore()
	restore() // idempotent
	if !GradEnabled() {
		t.Errorf("GradEnabled() after restore = false")
	}
	if d := w.MulScalar(2).Detach(); d.RequiresGrad() || !d.IsLeaf() {
		t.Errorf("Detach: RequiresGrad %v, IsLeaf %v; want false, true", d.RequiresGrad(), d.IsLeaf())
	}
	if op := w.Exp().Op(); op != "Exp" {
		t.Errorf("Op() = %q, want Exp", op)
	}
	// BackwardWith on a non-scalar
	v := Ones(2).SetRequiresGrad(true)
	v.MulScalar(3).BackwardWith(FromSlice(f32(1, 2)))
	checkTensor(t, "BackwardWith", v.Grad(), f32(3, 6), 2)
}

func TestOpHook(t *testing.T) {
	var names []string
	restore := setOpHook(func(e OpEvent) {
		dir := "fwd"
		if e.Backward {
			dir = "bwd"
		}
		names = append(names, e.Name+"/"+dir)
	})
	x := Ones(2, 2).SetRequiresGrad(true)
	x.ReLU().Sum().Backward()
	restore()
	x.ReLU() // not recorded
	got, want := fmt.Sprint(names), "[ReLU/fwd Sum/fwd Sum/bwd ReLU/bwd]"
	if got != want {
		t.Errorf("hook saw %s, want %s", got, want)
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		x    *Tensor
		want string
	}{
		{FromSlice(f32(1, 2, 3, 4), 2, 2), "tensor([[1, 2], [3, 4]], shape=[2 2])"},
		{Scalar(0.5), "tensor(0.5, shape=[])"},
		{Arange(0, 10, 1), "tensor([0, 1, 2, ..., 7, 8, 9], shape=[10])"},
		{Ones(1).SetRequiresGrad(true), "tensor([1], shape=[1], requires_grad)"},
		{SparseFromDense(Eye(3)), "sparse(nnz=3, shape=[3 3])"},
	}
	for _, tt := range tests {
		if got := tt.x.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestAccessors(t *testing.T) {
	x := Arange(0, 24, 1).Reshape(2, 3, 4)
	if x.Dims() != 3 || x.Len() != 24 || x.Size(-1) != 4 || x.At(1, 2, 3) != 23 || x.At(-1, 0, 0) != 12 {
		t.Errorf("Dims %d Len %d Size(-1) %d At(1,2,3) %v At(-1,0,0) %v; want 3 24 4 23 12",
			x.Dims(), x.Len(), x.Size(-1), x.At(1, 2, 3), x.At(-1, 0, 0))
	}
	s := x.Shape()
	s[0] = 99
	if x.Size(0) != 2 {
		t.Errorf("modifying Shape()'s result changed the tensor")
	}
	if v := x.Sum().Item(); v != 276 {
		t.Errorf("Sum().Item() = %v, want 276", v)
	}
	c := x.Clone()
	c.Set(-1, 0, 0, 0)
	if x.At(0, 0, 0) != 0 {
		t.Errorf("Clone shares data with the original")
	}
}
