package cuda

import (
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// TestWithAutocast checks the backend that WithAutocast returns on a
// recording device with bfloat16 kernels: its MatMul takes the format it
// was given, not the calling goroutine's scope (bfloat16 storage outside
// every scope, float32 inside Autocast(BFloat16)), while the device's own
// backend follows the scope. Both write into the device's memory and
// their storage names the device.
func TestWithAutocast(t *testing.T) {
	d, _ := openRecorderBF16(t)
	a := tensor.Randn(1, 4, 8).To(d.Backend())
	b := tensor.Randn(2, 8, 16).To(d.Backend())
	format := func(ops tensor.Backend) string {
		s, err := ops.(tbackend.GraphBackend).MatMul(a, b, false, false)
		if err != nil {
			t.Fatal(err)
		}
		if s.Backend() != d.Backend() {
			t.Errorf("the product's storage names %v, not the device's backend", s.Backend())
		}
		switch s.(type) {
		case *BF16Tensor:
			return "bfloat16"
		case *Tensor:
			return "float32"
		}
		return "?"
	}
	fixer := d.Backend().(tbackend.AutocastFixer)
	for _, c := range []struct {
		name  string
		scope tensor.DType
		ops   tensor.Backend
		want  string
	}{
		{"device backend, no scope", tensor.Float32, d.Backend(), "float32"},
		{"device backend, bfloat16 scope", tensor.BFloat16, d.Backend(), "bfloat16"},
		{"fixed bfloat16, no scope", tensor.Float32, fixer.WithAutocast(tensor.BFloat16), "bfloat16"},
		{"fixed float32, bfloat16 scope", tensor.BFloat16, fixer.WithAutocast(tensor.Float32), "float32"},
		{"fixed bfloat16, bfloat16 scope", tensor.BFloat16, fixer.WithAutocast(tensor.BFloat16), "bfloat16"},
	} {
		var got string
		tensor.Autocast(c.scope, func() { got = format(c.ops) })
		if got != c.want {
			t.Errorf("%s: MatMul wrote %s storage, want %s", c.name, got, c.want)
		}
	}
	// FixAutocast, as gnnlib/nn's layer ops call it in their forward
	// pass: the scope's format, kept for calls made after it closed (a
	// backward function's).
	var fixed tbackend.GraphBackend
	var dt tensor.DType
	tensor.Autocast(tensor.BFloat16, func() { fixed, dt = tbackend.FixAutocast(d.Backend().(tbackend.GraphBackend)) })
	if dt != tensor.BFloat16 {
		t.Errorf("FixAutocast inside Autocast(BFloat16) returned %v", dt)
	}
	if got := format(fixed); got != "bfloat16" {
		t.Errorf("after the scope closed, FixAutocast's backend wrote %s storage, want bfloat16", got)
	}
}
