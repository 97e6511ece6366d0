package tensor

import (
	"errors"
	"math"
	"sync"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/internal/half"
)

// allRepresentable reports whether every value of t is a value of dt.
func allRepresentable(t *Tensor, dt DType) bool {
	for _, v := range t.Data() {
		if dt.Round(v) != v && !math.IsNaN(float64(v)) {
			return false
		}
	}
	return true
}

func TestAutocastForward(t *testing.T) {
	r := NewRNG(1)
	x := r.Normal(0, 1, 5, 7)
	w := r.Normal(0, 1, 7, 3).SetRequiresGrad(true)
	for _, dt := range []DType{BFloat16, Float16} {
		// MatMul reads both operands in dt (the float32 weight
		// rounded), as torch.autocast and the device's tensor cores do,
		// sums in float32 and stores the result rounded.
		want := x.RoundTo(dt).MatMul(w.Detach().RoundTo(dt))
		var y, sm, lsm *Tensor
		Autocast(dt, func() {
			y = x.MatMul(w)
			sm = y.Softmax(1)
			lsm = y.LogSoftmax(1)
		})
		for i, v := range y.Data() {
			if r := dt.Round(want.Data()[i]); v != r {
				t.Fatalf("%v: MatMul[%d] = %v, want the float32 product of the rounded operands, rounded, %v", dt, i, v, r)
			}
		}
		// Softmax and LogSoftmax keep float32: the same as outside
		// the scope on the same (rounded) input.
		if ws := y.Detach().Softmax(1); !AllClose(sm, ws, 0, 0) {
			t.Errorf("%v: Softmax under Autocast = %v, want float32 %v", dt, sm, ws)
		}
		if wl := y.Detach().LogSoftmax(1); !AllClose(lsm, wl, 0, 0) {
			t.Errorf("%v: LogSoftmax under Autocast = %v, want float32 %v", dt, lsm, wl)
		}
		if allRepresentable(lsm, dt) {
			t.Errorf("%v: LogSoftmax output is all %v values: it was rounded", dt, dt)
		}
	}
	if !allRepresentable(w, Float32) || allRepresentable(w, BFloat16) {
		t.Errorf("the parameter was rounded: its master copy must stay float32")
	}
}

func TestAutocastBackward(t *testing.T) {
	r := NewRNG(2)
	x := r.Normal(0, 1, 6, 5)
	w := r.Normal(0, 1, 5, 4).SetRequiresGrad(true)
	b := r.Normal(0, 1, 4).SetRequiresGrad(true)
	w0 := w.Clone()
	var loss *Tensor
	Autocast(BFloat16, func() {
		h := x.MatMul(w).Add(b).Tanh()
		loss = h.Square().Mean()
	})
	// The backward pass runs outside the scope and still follows the
	// formats of the forward pass.
	loss.Backward()
	for name, g := range map[string]*Tensor{"w": w.Grad(), "b": b.Grad()} {
		if !allRepresentable(g, BFloat16) {
			t.Errorf("grad of %s under Autocast has values that are not bfloat16: %v", name, g)
		}
	}
	// Against float32 autograd the gradients agree to BF16's precision
	// over a few roundings.
	w32 := w0.Clone().SetRequiresGrad(true)
	b32 := b.Detach().Clone().SetRequiresGrad(true)
	x.MatMul(w32).Add(b32).Tanh().Square().Mean().Backward()
	if !AllClose(w.Grad(), w32.Grad(), 0.05, 1e-3) {
		t.Errorf("bf16 grad of w %v far from float32 %v", w.Grad(), w32.Grad())
	}
	if !AllClose(w, w0, 0, 0) {
		t.Errorf("the backward pass changed the parameter")
	}
}

func TestAutocastViewKeepsParameter(t *testing.T) {
	w := FromSlice([]float32{1.0001, 2.0002, 3.0003, 4.0004}, 2, 2).SetRequiresGrad(true)
	want := w.Clone()
	Autocast(BFloat16, func() {
		_ = w.Reshape(4)
		_ = w.Reshape(1, 4).Add(Scalar(0))
	})
	if !AllClose(w, want, 0, 0) {
		t.Errorf("Reshape under Autocast changed the float32 parameter it views: %v, want %v", w, want)
	}
}

func TestAutocastFloat16Range(t *testing.T) {
	x := FromSlice([]float32{1e5, -1e5, 1e-9, 65504, 3})
	var y *Tensor
	Autocast(Float16, func() { y = x.MulScalar(1) })
	want := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), 0, 65504, 3}
	for i, v := range y.Data() {
		if v != want[i] {
			t.Errorf("Float16 store of %v = %v, want %v", x.Data()[i], v, want[i])
		}
	}
}

func TestAutocastScopes(t *testing.T) {
	if got := AutocastDType(); got != Float32 {
		t.Fatalf("AutocastDType() outside a scope = %v, want float32", got)
	}
	Autocast(BFloat16, func() {
		if got := AutocastDType(); got != BFloat16 {
			t.Errorf("AutocastDType() = %v, want bfloat16", got)
		}
		Autocast(Float32, func() {
			if got := AutocastDType(); got != Float32 {
				t.Errorf("nested Autocast(Float32): AutocastDType() = %v, want float32", got)
			}
			y := FromSlice([]float32{1.0001}).MulScalar(1)
			if y.Item() != 1.0001 {
				t.Errorf("op in a nested float32 scope rounded: %v", y.Item())
			}
		})
		done := make(chan DType)
		go func() { done <- AutocastDType() }()
		if got := <-done; got != Float32 {
			t.Errorf("another goroutine sees %v, want float32 (the scope is per goroutine)", got)
		}
	})
	restore := SetAutocast(Float16)
	restore()
	restore() // a second call does nothing
	if got := AutocastDType(); got != Float32 {
		t.Errorf("after restore AutocastDType() = %v, want float32", got)
	}
	err := catch(func() { SetAutocast(DType(7)) })
	if !errors.Is(err, ErrDType) {
		t.Errorf("SetAutocast(DType(7)) panicked with %v, want ErrDType", err)
	}
}

func TestRoundTo(t *testing.T) {
	x := FromSlice([]float32{1.00390625, 1.01171875, float32(math.Inf(1)), 1e-30}).SetRequiresGrad(true)
	y := x.RoundTo(BFloat16)
	want := []float32{1, 1.015625, float32(math.Inf(1)), half.RoundBF16(1e-30)}
	for i, v := range y.Data() {
		if v != want[i] {
			t.Errorf("RoundTo(BFloat16)[%d] = %v, want %v", i, v, want[i])
		}
	}
	y.Sum().Backward()
	if !AllClose(x.Grad(), Ones(4), 0, 0) {
		t.Errorf("RoundTo gradient = %v, want ones (a cast passes the gradient)", x.Grad())
	}
	if d := BFloat16.Size(); d != 2 || Float32.Size() != 4 {
		t.Errorf("Size = %d, %d", d, Float32.Size())
	}
}

// TestAutocastOpEventDType: the op hook sees the format each op stored its
// output in, forward and backward, for a profiler's byte counts.
func TestAutocastOpEventDType(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]DType{}
	restore := setOpHook(func(ev OpEvent) {
		mu.Lock()
		defer mu.Unlock()
		key := ev.Name
		if ev.Backward {
			key += " backward"
		}
		seen[key] = ev.DType
	})
	defer restore()
	w := Randn(1, 3, 2).SetRequiresGrad(true)
	var loss *Tensor
	Autocast(BFloat16, func() { loss = Randn(2, 4, 3).MatMul(w).LogSoftmax(1).Mean() })
	loss.Backward()
	Randn(3, 2, 2).Add(Randn(4, 2, 2))
	// LogSoftmax stores float32; the gradient it returns for its bfloat16
	// input is bfloat16.
	want := map[string]DType{"MatMul": BFloat16, "MatMul backward": BFloat16, "LogSoftmax": Float32,
		"LogSoftmax backward": BFloat16, "Mean": Float32, "Add": Float32}
	mu.Lock()
	defer mu.Unlock()
	for k, v := range want {
		if got, ok := seen[k]; !ok || got != v {
			t.Errorf("op event %q: DType %v (seen %v), want %v", k, got, ok, v)
		}
	}
}
