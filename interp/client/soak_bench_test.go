package client_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/interp/client"
	"github.com/gnnlab/gnnlab/interp/workerproto"
)

// soakMix is a notebook's work over a bounded state: 60 variables and 40
// functions defined again and again, calls, closures, loops, tensors,
// prints, HTML, line plots and failing cells. %[1]d is the cell's number, %[2]d a variable's slot and
// %[3]d a function's.
var soakMix = []string{
	"v%[2]d := %[1]d",
	"func f%[3]d(x int) int { return x + %[1]d }",
	"f%[3]d(v%[2]d) + %[1]d",
	"t := tensor.Ones(8, 8).MulScalar(%[1]d)\nt.Sum().Item()",
	"fmt.Println(\"cell\", %[1]d, v%[2]d)",
	"display.HTML(\"<b>cell %[1]d</b>\")",
	"var s []int\n_ = s[%[1]d%%3]",         // runtime error
	"w%[2]d := v%[2]d * f%[3]d(2)\nw%[2]d", // a second variable per slot
	"undefinedName%[1]d + 1",               // compile error
	"h := func(a int) int { return a - %[1]d }\nh(v%[2]d)",
	"func g%[3]d(x int) int { return f%[3]d(x) * 2 }\ng%[3]d(%[1]d)",
	"m%[2]d := tensor.Ones(16, 16).MulScalar(%[1]d)\nm%[2]d.Sum().Item()",
	"k%[2]d := func() int { return v%[2]d + %[1]d }\nk%[2]d()",
	"for i := 0; i < 10; i++ {\n\tv%[2]d += i\n}\nv%[2]d",
	"viz.Must(viz.Lines([]float64{0, 1, 2}, []viz.Series{{Name: \"loss\", Y: []float64{3, 2, float64(%[1]d %% 7)}}}, viz.LineOptions{Title: \"cell %[1]d\", XLabel: \"epoch\", YLabel: \"loss\"}))",
}

const soakSetup = "import (\"fmt\"; \"runtime\"; \"github.com/gnnlab/gnnlab/gnnlib/tensor\"; \"github.com/gnnlab/gnnlab/viz\"; \"github.com/gnnlab/gnnlab/viz/display\")\n" +
	"func liveHeap() uint64 {\n\truntime.GC()\n\tvar ms runtime.MemStats\n\truntime.ReadMemStats(&ms)\n\treturn ms.HeapAlloc\n}"

// BenchmarkSoak runs 10,000 mixed cells (GNNLAB_SOAK_CELLS sets another
// number) through the real client and worker and prints, at each 1,000,
// the worker's live heap after a GC and the median round trip of the
// last 1,000 cells; it reports the ratios that issue 28 bounds (heap at
// the end over heap at 1,000 ≤ 2, p50 of the last 1,000 over the first
// ≤ 1.2). A measurement, not a test.
func BenchmarkSoak(b *testing.B) {
	n := 10000
	if v := os.Getenv("GNNLAB_SOAK_CELLS"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	// trim is the session as it is; keep is without trimming the global
	// frame (interp/internal/frame), as before issue 28.
	for _, variant := range []struct{ name, env string }{{"trim", ""}, {"keep", "GNNLAB_FRAME_TRIM=off"}} {
		b.Run(variant.name, func(b *testing.B) {
			for b.Loop() {
				soak(b, n, variant.env)
			}
		})
	}
}

func soak(b *testing.B, n int, env string) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.Start(ctx, client.Config{Command: []string{exe}, Env: []string{"GNNLAB_TEST_WORKER=loop", env}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if _, ce := exec(b, c, soakSetup); ce != nil {
		b.Fatalf("setup: %+v", ce)
	}
	heap := func() float64 {
		got, ce := exec(b, c, "liveHeap()")
		if ce != nil {
			b.Fatalf("liveHeap(): %+v", ce)
		}
		v, _ := strconv.ParseFloat(got, 64)
		return v / (1 << 20)
	}
	fmt.Printf("%s\n| cells | live heap (MiB) | p50 (ms) |\n|---:|---:|---:|\n| 0 | %.1f | |\n", b.Name(), heap())
	var firstHeap, firstP50, lastHeap, lastP50 float64
	lat := make([]time.Duration, 0, 1000)
	failed := map[int]int{} // kind of cell: how many failed
	for i := range n {
		code := fmt.Sprintf(soakMix[i%len(soakMix)], i+1, (i/len(soakMix))%60, (i/len(soakMix))%40)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		t0 := time.Now()
		res, err := c.Execute(ctx, client.Cell{Code: code, Unlisted: true}, func(workerproto.Event) {})
		if res.Error != nil {
			failed[i%len(soakMix)]++
		}
		lat = append(lat, time.Since(t0))
		cancel()
		if err != nil {
			b.Fatalf("cell %d %q: %v", i+1, code, err)
		}
		if (i+1)%1000 == 0 {
			slices.Sort(lat)
			p50 := float64(lat[len(lat)/2].Microseconds()) / 1000
			h := heap()
			if i+1 == 1000 {
				firstHeap, firstP50 = h, p50
			}
			lastHeap, lastP50 = h, p50
			fmt.Printf("| %d | %.1f | %.2f |\n", i+1, h, p50)
			lat = lat[:0]
		}
	}
	if firstHeap > 0 {
		b.ReportMetric(lastHeap/firstHeap, "heap-ratio")
		b.ReportMetric(lastP50/firstP50, "p50-ratio")
		b.ReportMetric(lastHeap, "MiB-live")
	}
	// Only the cells written to fail do.
	for kind, count := range failed {
		if kind != 6 && kind != 8 {
			b.Errorf("%d cells of kind %d failed: %q", count, kind, soakMix[kind])
		}
	}
	if c.Crashes() != 0 {
		b.Errorf("the soak crashed %d workers", c.Crashes())
	}
}
