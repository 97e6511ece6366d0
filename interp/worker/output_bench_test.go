package worker

import (
	"io"
	"testing"
)

// BenchmarkStreamRouter measures a cell's write through the session's
// stdout router: while no comm handler runs (one atomic load), and while
// one runs on another goroutine (the writer's goroutine id is read from
// its stack), at the stack depth of a test and 200 frames deep (yaegi's
// calls are deep). It prints the ratios to the idle write.
func BenchmarkStreamRouter(b *testing.B) {
	line := []byte("tick 12345\n")
	var idle float64
	for _, tc := range []struct {
		name     string
		callback bool
		depth    int
	}{
		{"idle", false, 0},
		{"callback-running", true, 0},
		{"callback-running-200-frames", true, 200},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := &server{comms: newCommQueue()}
			r := &streamRouter{s: s, name: "stdout", w: io.Discard}
			if tc.callback {
				s.comms.gid.Store(^uint64(0)) // a goroutine that is not this one
				s.comms.active.Store(1)
			}
			b.ReportAllocs()
			var loop func(d int)
			loop = func(d int) {
				if d > 0 {
					loop(d - 1)
					return
				}
				b.ResetTimer()
				for range b.N {
					_, _ = r.Write(line)
				}
				b.StopTimer()
			}
			loop(tc.depth)
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			if tc.name == "idle" {
				idle = ns
			} else if idle > 0 {
				b.ReportMetric(ns/idle, "x-idle")
			}
		})
	}
}
