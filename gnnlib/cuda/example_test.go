package cuda_test

import (
	"fmt"
	"strings"

	"github.com/gnnlab/gnnlab/gnnlib/cuda"
)

// The source of one kernel, as a notebook shows it: its comment, its
// signature and its body.
func ExampleKernelSource() {
	src, err := cuda.KernelSource("spmm_heavy_vec4")
	if err != nil {
		fmt.Println(err)
		return
	}
	lines := strings.Split(strings.TrimSpace(src), "\n")
	fmt.Println(lines[0])
	fmt.Println(lines[len(lines)-1])
	// Output:
	// // spmm_heavy_vec4: one block per edge tile of a heavy row (heavy lists the
	// }
}
