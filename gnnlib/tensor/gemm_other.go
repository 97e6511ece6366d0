//go:build !amd64 || purego

package tensor

// useAVX2 is false where there is no assembly micro-kernel.
const useAVX2 = false

// kernel computes the mr×nr tile c (+)= A·B from packed micro-panels.
func kernel(kb int, a, b, c []float32, ldc int, acc bool) {
	kernelGo(kb, a, b, c, ldc, acc)
}
