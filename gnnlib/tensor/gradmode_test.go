package tensor

import (
	"sync"
	"testing"
)

// TestGradModePerGoroutine: a no-grad scope (and a backward pass, which
// runs in one) is the calling goroutine's; another goroutine's ops still
// record. Before, the switch was process-wide and a concurrent forward
// pass recorded nothing (found by gnnlib/dist's in-process ranks).
func TestGradModePerGoroutine(t *testing.T) {
	w := Randn(1, 3, 3).SetRequiresGrad(true)
	x := Randn(2, 2, 3)
	inScope, leave := make(chan struct{}), make(chan struct{})
	go func() {
		NoGrad(func() {
			if GradEnabled() {
				t.Error("GradEnabled inside NoGrad = true")
			}
			if x.MatMul(w).RequiresGrad() {
				t.Error("an op inside NoGrad recorded")
			}
			close(inScope)
			<-leave
		})
	}()
	<-inScope
	if !GradEnabled() {
		t.Error("GradEnabled in another goroutine while one is in NoGrad = false")
	}
	if !x.MatMul(w).RequiresGrad() {
		t.Error("an op in another goroutine did not record while one is in NoGrad")
	}
	close(leave)

	// Nesting, and a restore called from another goroutine.
	restore := DisableGrad()
	NoGrad(func() {})
	if GradEnabled() {
		t.Error("GradEnabled after a nested NoGrad ended, outer scope active = true")
	}
	done := make(chan struct{})
	go func() { restore(); restore(); close(done) }()
	<-done
	if !GradEnabled() {
		t.Error("GradEnabled after the scope was restored = false")
	}
}

// TestConcurrentTraining trains the same least-squares model in four
// goroutines at once and checks each ends with the parameters of the
// same training run alone.
func TestConcurrentTraining(t *testing.T) {
	x, y := Randn(3, 16, 4), Randn(4, 16, 1)
	train := func() []float32 {
		w := Randn(5, 4, 1).SetRequiresGrad(true)
		for range 50 {
			d := x.MatMul(w).Sub(y)
			loss := d.Mul(d).Sum()
			w.ZeroGrad()
			loss.Backward()
			NoGrad(func() {
				g := w.Grad()
				for i := range w.data {
					w.data[i] -= 0.01 * g.data[i]
				}
			})
		}
		return append([]float32(nil), w.data...)
	}
	want := train()
	var wg sync.WaitGroup
	got := make([][]float32, 4)
	for k := range got {
		wg.Go(func() { got[k] = train() })
	}
	wg.Wait()
	for k, g := range got {
		for i := range want {
			if g[i] != want[i] {
				t.Fatalf("goroutine %d: w[%d] = %v, alone %v", k, i, g[i], want[i])
			}
		}
	}
}

// BenchmarkTinyStep is a training step of tiny tensors, where the cost
// of recording (and of the per-goroutine switch during the backward
// pass) is largest beside the arithmetic.
func BenchmarkTinyStep(b *testing.B) {
	x, y := Randn(3, 2, 2), Randn(4, 2, 1)
	w := Randn(5, 2, 1).SetRequiresGrad(true)
	for b.Loop() {
		d := x.MatMul(w).Sub(y)
		loss := d.Mul(d).Sum()
		w.ZeroGrad()
		loss.Backward()
	}
}
