package cuda

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestKernelFiles(t *testing.T) {
	files := KernelFiles()
	for _, want := range []string{"common.cuh", "gatv2.cu", "gnn.cu", "spmm.cu"} {
		found := false
		for _, f := range files {
			found = found || f == want
		}
		if !found {
			t.Errorf("KernelFiles() = %v, lacks %q", files, want)
		}
	}
}

func TestKernelSourceFile(t *testing.T) {
	want, err := os.ReadFile("kernels/spmm.cu")
	if err != nil {
		t.Fatal(err)
	}
	got, err := KernelSource("spmm.cu")
	if err != nil || got != string(want) {
		t.Errorf("KernelSource(%q) = %d bytes, %v; want the %d bytes of kernels/spmm.cu", "spmm.cu", len(got), err, len(want))
	}
}

func TestKernelSourceFunction(t *testing.T) {
	for _, c := range []struct {
		name, first, contains string
	}{
		{"spmm_vec4", "// spmm_vec4: a group of G lanes", `extern "C" __global__ void spmm_vec4(`},
		{"spmm_heavy_vec4", "// spmm_heavy_vec4: one block per edge tile", "atomicAdd(q + 3, acc.w);"},
		{"gatv2_fwd_body", "// With SAVE (gatv2_fwde, tune.GATv2EdgeCoef) the forward pass also", "__device__ void gatv2_fwd_body("},
		{"group_sum", "// group_sum adds v over the G lanes", "__shfl_xor_sync"},
	} {
		src, err := KernelSource(c.name)
		if err != nil {
			t.Errorf("KernelSource(%q): %v", c.name, err)
			continue
		}
		if !strings.HasPrefix(src, c.first) || !strings.Contains(src, c.contains) || !strings.HasSuffix(src, "}\n") {
			t.Errorf("KernelSource(%q) = %q..., want it to start with %q, contain %q and end with its closing brace", c.name, head(src), c.first, c.contains)
		}
		if strings.Count(src, "{") != strings.Count(src, "}") {
			t.Errorf("KernelSource(%q): unbalanced braces:\n%s", c.name, src)
		}
	}
	// The definition ends at its own closing brace: the next kernel is not included.
	src, _ := KernelSource("spmm_vec4")
	if strings.Contains(src, "spmm_heavy_vec4(") {
		t.Errorf("KernelSource(%q) runs on into the next kernel:\n%s", "spmm_vec4", src)
	}
}

func TestKernelSourceUnknown(t *testing.T) {
	for _, name := range []string{"no_such_kernel", "", "spmm"} {
		if _, err := KernelSource(name); !errors.Is(err, ErrNoSource) {
			t.Errorf("KernelSource(%q) error = %v, want ErrNoSource", name, err)
		}
	}
}

func head(s string) string {
	if len(s) > 80 {
		return s[:80]
	}
	return s
}
