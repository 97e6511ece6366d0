package cuda

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/internal/half"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
	tbackend "github.com/gnnlab/gnnlab/gnnlib/tensor/backend"
)

// addBF16 is the backend's Binary add of a and b (rows x cols, bfloat16
// storage) under Autocast(BFloat16).
func addBF16(t *testing.T, be *backend, a, b *BF16Tensor, rows, cols int) tensor.Storage {
	t.Helper()
	var s tensor.Storage
	var err error
	tensor.Autocast(tensor.BFloat16, func() {
		s, err = be.Binary(tbackend.BinaryAdd, tbackend.FromStorage(a, rows, cols), tbackend.FromStorage(b, rows, cols))
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAddBF16Launches checks, on the recording driver, which kernels
// Binary's add of two bfloat16 tensors of one shape launches under
// Autocast(BFloat16): with tune.BF16Add one add_bf16_v8 (a length that
// is a multiple of 8) or add_bf16 (one that is not) and bfloat16
// storage; without it two widenings and the float32 binary_op.
func TestAddBF16Launches(t *testing.T) {
	defer func(on bool) { tune.BF16Add = on }(tune.BF16Add)
	for _, c := range []struct {
		on         bool
		rows, cols int
		want       []string
		dt         tensor.DType
	}{
		{true, 100, 256, []string{"add_bf16_v8"}, tensor.BFloat16},
		{true, 7, 5, []string{"add_bf16"}, tensor.BFloat16},
		{false, 100, 256, []string{"bf16_to_f32", "bf16_to_f32", "binary_op"}, tensor.Float32},
	} {
		tune.BF16Add = c.on
		d, drv := openRecorderBF16(t)
		a, err := d.EmptyBF16(c.rows, c.cols)
		if err != nil {
			t.Fatal(err)
		}
		b, err := d.EmptyBF16(c.rows, c.cols)
		if err != nil {
			t.Fatal(err)
		}
		drv.trace = nil
		s := addBF16(t, d.be, a, b, c.rows, c.cols)
		var got []string
		for _, n := range drv.trace {
			got = append(got, n.kernel)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("BF16Add %v, %dx%d: launches %v, want %v", c.on, c.rows, c.cols, got, c.want)
		}
		if dt := tbackend.FromStorage(s, c.rows, c.cols).DType(); dt != c.dt {
			t.Errorf("BF16Add %v: the sum in %v storage, want %v", c.on, dt, c.dt)
		}
	}
}

// TestAddBF16 checks add_bf16 and add_bf16_v8 on the device: the sum of
// two bfloat16 tensors is bf16(float(a) + float(b)) bit for bit (the
// host's rounding, gnnlib/internal/half), for lengths that are a
// multiple of 8 and one that is not, and in bfloat16 storage.
func TestAddBF16(t *testing.T) {
	d := bf16OrSkip(t)
	defer func(on bool) { tune.BF16Add = on }(tune.BF16Add)
	tune.BF16Add = true
	r := rand.New(rand.NewPCG(61, 62))
	for _, sh := range [][2]int{{1, 8}, {7, 5}, {1001, 24}, {169_343, 256}} {
		rows, cols := sh[0], sh[1]
		_, ah := bf16Operand(r, rows*cols)
		_, bh := bf16Operand(r, rows*cols)
		a, err := d.BF16FromHost(ah, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		b, err := d.BF16FromHost(bh, rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		s := addBF16(t, d.be, a, b, rows, cols)
		h, ok := s.(*BF16Tensor)
		if !ok {
			t.Fatalf("%dx%d: the sum in %T storage, want bfloat16", rows, cols, s)
		}
		got, err := h.Host()
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			want := uint16(half.FromFloat32BF16(half.BF16(ah[i]).Float32() + half.BF16(bh[i]).Float32()))
			if got[i] != want {
				t.Fatalf("%dx%d: sum %d is %#04x, want %#04x", rows, cols, i, got[i], want)
			}
		}
		a.Free()
		b.Free()
		h.Free()
	}
}
