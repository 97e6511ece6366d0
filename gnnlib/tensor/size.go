package tensor

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime/debug"
	"sync"
)

// ErrTooLarge is wrapped by the panic value of a constructor (or an op)
// asked for a tensor whose element count overflows int or whose values
// would not fit in memory: the size is checked before anything is
// allocated, so the request fails instead of the process.
var ErrTooLarge = errors.New("tensor: too large")

// ErrNotFinite is wrapped by the panic value of a constructor given a NaN
// or infinite argument where a finite one is needed (Arange's bounds and
// step).
var ErrNotFinite = errors.New("tensor: argument not finite")

// MaxBytes bounds the bytes of one tensor's values; 0 (the default) means
// the machine's physical memory, or the Go memory limit when one is set
// (GOMEMLIMIT).
var MaxBytes int64

var physicalMemory = sync.OnceValue(totalMemory)

func maxBytes() uint64 {
	if MaxBytes > 0 {
		return uint64(MaxBytes)
	}
	limit := uint64(math.MaxInt64)
	if l := debug.SetMemoryLimit(-1); l > 0 && l < math.MaxInt64 {
		limit = uint64(l)
	}
	if m := physicalMemory(); m > 0 {
		limit = min(limit, m)
	}
	return limit
}

// checkedLen returns the number of elements of shape, panicking with an
// error wrapping ErrTooLarge when it overflows or when the values (4 bytes
// each) would exceed MaxBytes. Negative dimensions are checkShape's.
func checkedLen(op string, shape []int) int {
	n := elements(op, shape)
	if uint64(n) > maxBytes()/4 {
		panic(tooLarge(op, shape))
	}
	return n
}

// elements returns the number of elements of shape, panicking with an
// error wrapping ErrTooLarge when it, or its size in bytes, overflows int.
// Negative dimensions count as 1 (Reshape's -1).
func elements(op string, shape []int) int {
	if zeroDim(shape) {
		return 0
	}
	n := uint64(1)
	for _, d := range shape {
		if d < 0 {
			continue
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt/4 {
			panic(tooLarge(op, shape))
		}
		n = lo
	}
	return int(n)
}

func zeroDim(shape []int) bool {
	for _, d := range shape {
		if d == 0 {
			return true
		}
	}
	return false
}

func tooLarge(op string, shape []int) error {
	return fmt.Errorf("tensor: %s: shape %v: %s of values, more than the %s this machine can hold: %w", op, shape, byteString(bytesOf(shape)), byteString(maxBytes()), ErrTooLarge)
}

// bytesOf is the size of shape's values for messages, saturating.
func bytesOf(shape []int) uint64 {
	n := uint64(4)
	for _, d := range shape {
		hi, lo := bits.Mul64(n, uint64(max(d, 0)))
		if hi != 0 {
			return math.MaxUint64
		}
		n = lo
	}
	return n
}

func byteString(n uint64) string {
	switch {
	case n == math.MaxUint64:
		return "over 2^64 bytes"
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}
