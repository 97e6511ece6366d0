package quant_test

import (
	"fmt"

	"github.com/gnnlab/gnnlab/gnnlib/quant"
	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// The symmetric INT8 scheme of the teaching text: S = α/127.
func ExampleQuantize() {
	x := tensor.FromSlice([]float32{-1.27, -0.5, 0, 0.3, 1.27}, 5)
	p, _ := quant.NewParams(quant.Symmetric, 8, -1.27, 1.27)
	q, _ := quant.Quantize(x, p)
	fmt.Println(p)
	fmt.Println(q.Codes())
	fmt.Printf("%.2f\n", q.Dequantize().Data())
	// Output:
	// INT8 symmetric per-tensor S=0.01 Z=0
	// [-127 -50 0 30 127]
	// [-1.27 -0.50 0.00 0.30 1.27]
}

// The affine scheme: S = (α−β)/255, Z = round(−β/S).
func ExampleNewParams() {
	p, _ := quant.NewParams(quant.Affine, 8, -0.5, 2.05)
	lo, hi := p.Clip(0)
	fmt.Printf("S=%.2f Z=%d range [%.2f, %.2f]\n", p.Scale[0], p.Zero[0], lo, hi)
	// Output:
	// S=0.01 Z=50 range [-0.50, 2.05]
}

// INT4 codes are stored two per byte, the first in the low nibble.
func ExamplePackInt4() {
	codes := []int8{1, -1, 7, -8, 3}
	packed := make([]byte, 3)
	quant.PackInt4(packed, codes)
	fmt.Printf("% x\n", packed)
	back := make([]int8, len(codes))
	quant.UnpackInt4(back, packed)
	fmt.Println(back)
	// Output:
	// f1 87 03
	// [1 -1 7 -8 3]
}

// The INT8 GEMM is exact: it equals the integer product.
func ExampleGEMMInt8() {
	a := []int8{1, 2, 3, 4, 5, 6}         // 2×3
	b := []int8{-1, 0, 1, 2, 3, -128 + 1} // 3×2
	c := make([]int32, 4)
	quant.GEMMInt8(c, a, 2, quant.PackInt8(b, 3, 2))
	fmt.Println(c)
	// Output:
	// [10 -377 19 -752]
}

// Error metrics of INT8 and INT4 round trips of the same values.
func ExampleMeasure() {
	x := tensor.NewRNG(1).Normal(0, 1, 10000)
	for _, bits := range []int{8, 4} {
		p, _ := quant.ParamsFor(x, quant.Symmetric, bits, quant.PerTensor)
		s, _ := quant.Measure(x, p)
		fmt.Printf("INT%d: SQNR %.0f dB\n", bits, s.SQNR)
	}
	// Output:
	// INT8: SQNR 41 dB
	// INT4: SQNR 16 dB
}
