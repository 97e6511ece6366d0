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

//go:noescape
func convKernel6x16AVX2(kb int, a, b *float32, off *int32, c *float32, ldc int, bias *float32, relu bool)

//go:noescape
func reluMaskAVX2(n8 int, dst, grad, y *float32)

//go:noescape
func dotKernel4x3AVX2(n8, imgs int, a *float32, lda, astride int, b *float32, bstride int, off *int32, out *float32)

// convKernel computes the mr×nr tile c[i·ldc + j] = bias[i] + Σ_k a[k·mr + i]·b[off[k] + j]
// of a direct convolution (see conv.go), rectified if relu. The offsets
// must be non-negative and non-decreasing.
func convKernel(kb int, a, b []float32, off []int32, c []float32, ldc int, bias []float32, relu bool) {
	if useAVX2 && kb > 0 {
		// Bounds the assembly relies on.
		_ = a[kb*mr-1]
		_ = b[int(off[kb-1])+nr-1]
		_ = c[(mr-1)*ldc+nr-1]
		_ = bias[mr-1]
		convKernel6x16AVX2(kb, &a[0], &b[0], &off[0], &c[0], ldc, &bias[0], relu)
		return
	}
	convKernelGo(kb, a, b, off, c, ldc, bias, relu)
}

// reluGrad sets dst to g where y > 0 and to 0 elsewhere: the gradient
// through a rectifier whose output (or input) is y.
func reluGrad(dst, g, y []float32) {
	g, y = g[:len(dst)], y[:len(dst)]
	n8 := len(dst) / 8
	if useAVX2 && n8 > 0 {
		reluMaskAVX2(n8, &dst[0], &g[0], &y[0])
	}
	reluGradGo(dst[n8*8:], g[n8*8:], y[n8*8:])
}

// dotKernel computes the dotRows×dotCols lane-wise partial dot products of
// rows of a (lda apart) with b shifted by off, over n8·8 floats and imgs
// images (astride and bstride apart), into out.
func dotKernel(n8, imgs int, a []float32, lda, astride int, b []float32, bstride int, off []int32, out *[dotRows * dotCols * dotLanes]float32) {
	if useAVX2 && n8 > 0 && imgs > 0 {
		_ = a[(imgs-1)*astride+(dotRows-1)*lda+n8*dotLanes-1]
		_ = b[(imgs-1)*bstride+int(max(off[0], off[1], off[2]))+n8*dotLanes-1]
		dotKernel4x3AVX2(n8, imgs, &a[0], lda, astride, &b[0], bstride, &off[0], &out[0])
		return
	}
	dotKernelGo(n8, imgs, a, lda, astride, b, bstride, off, out)
}
