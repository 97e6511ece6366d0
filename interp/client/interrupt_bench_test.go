package client_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkInterrupt interrupts a cell blocked in each kind of call
// through the real client and worker, and reports the time from the
// interrupt to the reply (ms/interrupt) and the fraction of interrupts
// after which the functions defined before still answer (answers: 1 is
// always). The stuck kind waits in a compiled call that nothing ends: the
// worker is replaced and the session replayed. It is a measurement, not a
// test.
func BenchmarkInterrupt(b *testing.B) {
	url := neverAnswers(b)
	kinds := append(append([]blockedCell(nil), blockedCells...), blockedCell{"stuck (sync.Mutex.Lock)", "var mu sync.Mutex\nmu.Lock()\nmu.Lock()"})
	for _, bc := range kinds {
		b.Run(strings.ReplaceAll(bc.kind, " ", "_"), func(b *testing.B) {
			c, out := start(b)
			if _, ce := exec(b, c, definitions); ce != nil {
				b.Fatalf("definitions: %+v", ce)
			}
			var total time.Duration
			answers := 0
			for b.Loop() {
				ce, took := interruptBlocked(b, c, out, bc, url)
				if ce == nil {
					b.Fatalf("%s: the cell ended without an error", bc.kind)
				}
				total += took
				if got, ce := exec(b, c, "dbl(21)"); ce == nil && got == "42" {
					answers++
				}
				out.take()
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/interrupt")
			b.ReportMetric(float64(answers)/float64(b.N), "answers")
			fmt.Printf("| %s | %.0f ms | %d of %d |\n", bc.kind, float64(total.Microseconds())/1000/float64(b.N), answers, b.N)
		})
	}
}
