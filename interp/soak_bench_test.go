package interp

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
)

// soakCells is a mix of what notebooks do: define and redefine functions,
// assign variables, print, call library code.
var soakCells = []string{
	"func f%[1]d(x int) int { return x + %[1]d }",
	"func g(x int) int { return x * %[1]d }",
	"v%[1]d := g(%[1]d) + f%[1]d(1)",
	"acc = acc + g(2) // %[1]d",
	"fmt.Println(\"cell\", %[1]d, acc)",
	"t := tensor.Ones(4, 4).Mul(tensor.Full(%[1]d, 4, 4))\n_ = t.Sum()",
	"h := func(a int) int { return a - %[1]d }\nacc = h(acc)",
	"type pt%[1]d struct{ X, Y int }\np%[1]d := pt%[1]d{%[1]d, 2}\n_ = p%[1]d",
}

// tensorCells compute with 1 MiB tensors that only temporaries hold.
var tensorCells = []string{
	"tensor.Ones(512, 512).Mul(tensor.Full(%[1]d, 512, 512)).Sum()",
	"acc = acc + int(tensor.Full(1, 512, 512).Sum().Item()) // %[1]d",
}

// redefineCells redefine one function and call it.
var redefineCells = []string{
	"func g(x int) int { return x + %[1]d }",
	"acc = g(acc) %% 1000 // %[1]d",
}

// BenchmarkSoak runs cells in one session and prints the live heap after
// a GC every 1,000 cells (issue 20, 6: the worker's live heap grew from
// 2.9 to 646 MiB over 10,000 mixed cells). GNNLAB_SOAK_CELLS sets the
// number of cells (10,000); it is a measurement, not a test.
func BenchmarkSoak(b *testing.B) {
	n := 10000
	if v := os.Getenv("GNNLAB_SOAK_CELLS"); v != "" {
		fmt.Sscan(v, &n)
	}
	for _, mix := range []struct {
		name  string
		cells []string
	}{{"mixed", soakCells}, {"tensors", tensorCells}, {"redefine", redefineCells}} {
		b.Run(mix.name, func(b *testing.B) {
			for b.Loop() {
				soak(b, n, mix.cells)
			}
		})
	}
}

func soak(b *testing.B, n int, cells []string) {
	s := newTestSession(b, Options{Stdout: io.Discard, Stderr: io.Discard})
	mustEval(b, s, "import (\"fmt\"; \"github.com/gnnlab/gnnlab/gnnlib/tensor\")\nvar acc int")
	start := liveHeap()
	b.Logf("cells %6d: live heap %7.1f MiB", 0, mib(start))
	for i := range n {
		mustEval(b, s, fmt.Sprintf(cells[i%len(cells)], i/len(cells)+1))
		if (i+1)%1000 == 0 {
			b.Logf("cells %6d: live heap %7.1f MiB", i+1, mib(liveHeap()))
		}
	}
	b.ReportMetric(mib(liveHeap())-mib(start), "MiB-growth")
	if p := os.Getenv("GNNLAB_SOAK_HEAPPROFILE"); p != "" {
		if f, err := os.Create(p); err == nil {
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	runtime.KeepAlive(s)
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }
