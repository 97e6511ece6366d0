package cuda

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gnnlab/gnnlab/gnnlib/tensor"
)

// BenchmarkNNEpochHost times the host side of the arxiv-sized nn GCN and
// GATv2 epochs (nnEpochTrace's model: forward, loss, backward, Adam) in
// float32 and under Autocast(BFloat16) on the recording driver, which
// runs no kernel: what the host spends launching, allocating and
// recording per epoch, the bound of an epoch whose kernels take less.
// The variants run side by side; each reports ms/epoch and the garbage
// collections per epoch (the device pool starts them as it hands out
// blocks), and the bf16 ones their ratio to float32's.
func BenchmarkNNEpochHost(b *testing.B) {
	n := 169_343
	hg := testGraph(b, n, 14*n, false)
	for _, kind := range []string{"gcn", "gatv2"} {
		newConv := epochConv(kind)
		dims := []int{128, 256, 256, 40}
		var f32 float64
		for _, dt := range []tensor.DType{tensor.Float32, tensor.BFloat16} {
			b.Run(fmt.Sprintf("%s/%v", kind, dt), func(b *testing.B) {
				d, drv := openRecorder(b)
				d.desc = "record (sm_90, no GPU)"
				epoch := nnEpoch(d, hg, dims, newConv, func(f func()) { tensor.Autocast(dt, f) })
				epoch()
				epoch()
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				b.ResetTimer()
				t0 := time.Now()
				for range b.N {
					drv.trace = drv.trace[:0]
					epoch()
				}
				ms := float64(time.Since(t0).Microseconds()) / 1e3 / float64(b.N)
				b.StopTimer()
				runtime.ReadMemStats(&m1)
				b.ReportMetric(ms, "ms/epoch")
				b.ReportMetric(float64(m1.NumGC-m0.NumGC)/float64(b.N), "GCs/epoch")
				if dt == tensor.Float32 {
					f32 = ms
				} else if f32 > 0 {
					b.ReportMetric(ms/f32, "x-float32")
				}
			})
		}
	}
}
