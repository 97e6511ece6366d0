//go:build !amd64 || purego

package tensor

// useAVX2 is false where there is no assembly micro-kernel.
const useAVX2 = false

// kernel computes the mr×nr tile c (+)= A·B from packed micro-panels.
func kernel(kb int, a, b, c []float32, ldc int, acc bool) {
	kernelGo(kb, a, b, c, ldc, acc)
}

// convKernel computes the mr×nr tile of a direct convolution (conv.go).
func convKernel(kb int, a, b []float32, off []int32, c []float32, ldc int, bias []float32, relu bool) {
	convKernelGo(kb, a, b, off, c, ldc, bias, relu)
}

// reluGrad sets dst to g where y > 0 and to 0 elsewhere.
func reluGrad(dst, g, y []float32) { reluGradGo(dst, g, y) }

// dotKernel computes the partial dot products of the weight gradient (conv.go).
func dotKernel(n8, imgs int, a []float32, lda, astride int, b []float32, bstride int, off []int32, out *[dotRows * dotCols * dotLanes]float32) {
	dotKernelGo(n8, imgs, a, lda, astride, b, bstride, off, out)
}
