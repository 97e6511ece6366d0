//go:build !purego

package tensor

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly micro-kernel: AVX2 and FMA in the processor
// and YMM state saved by the OS (x/sys/cpu checks both).
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func kernel6x16AVX2(kb int, a, b, c *float32, ldc int, acc bool)

// kernel computes the mr×nr tile c (+)= A·B from packed micro-panels with
// the AVX2/FMA kernel when the processor has it, else in Go.
func kernel(kb int, a, b, c []float32, ldc int, acc bool) {
	if useAVX2 && kb > 0 {
		// Bounds the assembly relies on, checked once per tile.
		_ = a[kb*mr-1]
		_ = b[kb*nr-1]
		_ = c[(mr-1)*ldc+nr-1]
		kernel6x16AVX2(kb, &a[0], &b[0], &c[0], ldc, acc)
		return
	}
	kernelGo(kb, a, b, c, ldc, acc)
}
