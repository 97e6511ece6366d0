package cuda

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// CrossEntropy's row and label checks: with tune.CheckLabelsOnUpload the
// device backend makes them when it uploads the labels and tensor skips
// its own pass; without it tensor makes them at every call. Both must
// reject the same bad calls with an error wrapping tensor.ErrIndex, and
// the device must stay usable after each.

// crossEntropyErr runs tensor.CrossEntropy and returns what it panicked
// with, as an error (nil when it did not panic).
func crossEntropyErr(x *tensor.Tensor, labels, rows []int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("panic: %v", r)
			}
		}
	}()
	tensor.CrossEntropy(x, labels, rows)
	return nil
}

func TestCrossEntropyChecksLabels(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("CheckLabelsOnUpload=%v", on), func(t *testing.T) {
			defer func(v bool) { tune.CheckLabelsOnUpload = v }(tune.CheckLabelsOnUpload)
			tune.CheckLabelsOnUpload = on
			d, _ := openRecorder(t)
			be := d.Backend()
			if lc, ok := be.(tensor.LabelChecker); !ok || lc.ChecksLabels() != on {
				t.Fatalf("backend is a LabelChecker: %v, ChecksLabels %v; want true, %v", ok, ok && lc.ChecksLabels(), on)
			}
			n, c := 50, 7
			x := tensor.Randn(1, n, c).To(be)
			narrow := tensor.Randn(2, n, 3).To(be)
			good := make([]int, n)
			for i := range good {
				good[i] = i % c
			}
			with := func(r, v int) []int {
				y := append([]int(nil), good...)
				y[r] = v
				return y
			}
			cases := []struct {
				name   string
				x      *tensor.Tensor
				labels []int
				rows   []int
				want   string // in the message
			}{
				{"label too large", x, with(13, c), nil, "label 7 of row 13"},
				{"negative label", x, with(4, -1), nil, "label -1 of row 4"},
				{"label too large in rows", x, with(9, 12), []int{1, 9, 3}, "label 12 of row 9"},
				{"row out of range", x, good, []int{0, n}, "50 not in [0, 50)"},
				{"negative row", x, good, []int{-2}, "-2 not in [0, 50)"},
				// the cached labels, checked against 7 classes, now
				// meet logits of 3
				{"fewer classes on a cache hit", narrow, good, nil, "not in [0, 3)"},
			}
			for _, k := range cases {
				if err := crossEntropyErr(x, good, nil); err != nil {
					t.Fatalf("%s: the good call before it: %v", k.name, err)
				}
				err := crossEntropyErr(k.x, k.labels, k.rows)
				if err == nil {
					t.Errorf("%s: no error", k.name)
					continue
				}
				if !errors.Is(err, tensor.ErrIndex) || !strings.Contains(err.Error(), k.want) {
					t.Errorf("%s: %v; want an ErrIndex naming %q", k.name, err, k.want)
				}
			}
			// A label outside the listed rows is not checked, as on the CPU.
			if err := crossEntropyErr(x, with(20, 99), []int{0, 1, 2}); err != nil {
				t.Errorf("bad label outside the rows: %v", err)
			}
			if err := crossEntropyErr(x, good, []int{5, 6}); err != nil {
				t.Errorf("the device after the errors: %v", err)
			}
		})
	}
}

// BenchmarkCrossEntropyHost is the host time of one tensor.CrossEntropy
// call on arxiv-sized logits (169,343 x 40, labels cached) on the
// recording driver, with the labels checked at upload (on) and at every
// call (off), side by side; the ratio is printed.
func BenchmarkCrossEntropyHost(b *testing.B) {
	n, c := 169343, 40
	y := make([]int, n)
	for i := range y {
		y[i] = i % c
	}
	per := map[bool]float64{}
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("CheckLabelsOnUpload=%v", on), func(b *testing.B) {
			defer func(v bool) { tune.CheckLabelsOnUpload = v }(tune.CheckLabelsOnUpload)
			tune.CheckLabelsOnUpload = on
			d, drv := openRecorder(b)
			x := tensor.Randn(1, n, c).To(d.Backend())
			tensor.CrossEntropy(x, y, nil) // uploads the labels
			b.ResetTimer()
			for range b.N {
				tensor.CrossEntropy(x, y, nil)
				drv.trace = drv.trace[:0]
			}
			per[on] = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		})
	}
	if per[true] > 0 {
		b.Logf("host time a call: checked every call %.1f µs, at upload %.1f µs (%.2fx)", per[false]/1e3, per[true]/1e3, per[false]/per[true])
	}
}

// TestIntsEqual checks the label cache's comparison against slices.Equal:
// empty and nil slices, different lengths, one element changed anywhere
// (first, last, each in turn of a short slice), negative values.
func TestIntsEqual(t *testing.T) {
	base := []int{3, -1, 0, 7, 1 << 40, -5, 2, 9, 4}
	cases := [][2][]int{{nil, nil}, {nil, {}}, {{}, {1}}, {base, base[:8]}, {base, slices.Clone(base)}}
	for i := range base {
		for _, delta := range []int{1, -1, 1 << 33} {
			c := slices.Clone(base)
			c[i] += delta
			cases = append(cases, [2][]int{base, c})
		}
	}
	for _, c := range cases {
		if got, want := intsEqual(c[0], c[1]), slices.Equal(c[0], c[1]); got != want {
			t.Errorf("intsEqual(%v, %v) = %v, slices.Equal %v", c[0], c[1], got, want)
		}
	}
}
