package tensor

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// panicOf runs f and returns the error it panicked with (nil when it did
// not panic).
func panicOf(f func()) (err error) {
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

// TestImpossibleSizes asks for tensors that overflow int or exceed memory
// and for Arange with NaN or infinite arguments: each must fail with a named
// error before allocating (issue 20, 9: Zeros(1<<32, 1<<32) had Len 0,
// Zeros(1<<40) was an out-of-memory kill, Arange(0, +Inf, 1) was empty).
func TestImpossibleSizes(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		name string
		f    func()
		want error
	}{
		{"Zeros(1<<32, 1<<32)", func() { Zeros(1<<32, 1<<32) }, ErrTooLarge},
		{"Zeros(1<<40)", func() { Zeros(1 << 40) }, ErrTooLarge},
		{"Zeros(1<<62)", func() { Zeros(1 << 62) }, ErrTooLarge},
		{"Ones(1<<31, 1<<31, 4)", func() { Ones(1<<31, 1<<31, 4) }, ErrTooLarge},
		{"Full(1<<21, 1<<21, 1<<21)", func() { Full(1, 1<<21, 1<<21, 1<<21) }, ErrTooLarge},
		{"Rand(1<<40)", func() { Rand(1, 1<<40) }, ErrTooLarge},
		{"Randn(1<<32, 1<<32)", func() { Randn(1, 1<<32, 1<<32) }, ErrTooLarge},
		{"FromSlice(nil, 1<<32, 1<<32)", func() { FromSlice(nil, 1<<32, 1<<32) }, ErrTooLarge},
		{"Eye(1<<32)", func() { Eye(1 << 32) }, ErrTooLarge},
		{"Reshape(1<<32, 1<<32, 0)", func() { Zeros(0).Reshape(1<<32, 1<<32, 0) }, nil},
		{"Reshape(-1, 1<<32, 1<<32)", func() { Zeros(4).Reshape(-1, 1<<32, 1<<32) }, ErrTooLarge},
		{"Arange(0, +Inf, 1)", func() { Arange(0, inf, 1) }, ErrNotFinite},
		{"Arange(0, NaN, 1)", func() { Arange(0, nan, 1) }, ErrNotFinite},
		{"Arange(NaN, 1, 1)", func() { Arange(nan, 1, 1) }, ErrNotFinite},
		{"Arange(0, 1, NaN)", func() { Arange(0, 1, nan) }, ErrNotFinite},
		{"Arange(0, 1, -Inf)", func() { Arange(0, 1, math.Inf(-1)) }, ErrNotFinite},
		{"Arange(0, 1e300, 1e-300)", func() { Arange(0, 1e300, 1e-300) }, ErrTooLarge},
		{"Arange(0, 1e15, 1)", func() { Arange(0, 1e15, 1) }, ErrTooLarge},
		{"Arange(0, 3, 1)", func() { Arange(0, 3, 1) }, nil},
		{"Zeros(0, 1<<62)", func() { Zeros(0, 1<<62) }, nil},
		{"Zeros(1000, 1000)", func() { Zeros(1000, 1000) }, nil},
	}
	for _, tt := range tests {
		err := panicOf(tt.f)
		if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("%s: panic %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestMaxBytes(t *testing.T) {
	defer func(old int64) { MaxBytes = old }(MaxBytes)
	MaxBytes = 1 << 20
	if err := panicOf(func() { Zeros(1<<18 + 1) }); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Zeros(1<<18+1) with MaxBytes 1 MiB: panic %v, want ErrTooLarge", err)
	}
	if err := panicOf(func() { Zeros(1 << 18) }); err != nil {
		t.Errorf("Zeros(1<<18) with MaxBytes 1 MiB: panic %v, want none", err)
	}
}
