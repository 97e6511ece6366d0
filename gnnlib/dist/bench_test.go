package dist

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// naiveAllReduce is the textbook all-reduce the ring replaces, kept for
// the benchmark: rank 0 adds every rank's buffer into its own, then every
// rank copies rank 0's, so rank 0 moves (n-1)·len values in and every
// other rank len, one after another.
func (c *local) naiveAllReduce(buf []float32) error {
	if err := c.start(buf, call{"naive all-reduce", len(buf), 0}); err != nil {
		return err
	}
	g := c.g
	if c.rank == 0 {
		for r := 1; r < g.n; r++ {
			src := g.bufs[r]
			for i := range buf {
				buf[i] += src[i]
			}
		}
	}
	if err := g.wait(); err != nil {
		return err
	}
	if c.rank != 0 {
		copy(buf, g.bufs[0])
	}
	return g.wait()
}

// BenchmarkAllReduce reports the algorithm bandwidth (buffer bytes per
// second of all-reduce) of the in-process ring, the naive in-process
// all-reduce and the TCP ring on loopback, for 2 and 4 ranks.
func BenchmarkAllReduce(b *testing.B) {
	for _, ranks := range []int{2, 4} {
		for _, mb := range []int{1, 64} {
			for _, kind := range []string{"ring", "naive", "tcp"} {
				b.Run(fmt.Sprintf("%s/ranks=%d/%dMB", kind, ranks, mb), func(b *testing.B) {
					n := mb << 20 / 4
					var cs []Communicator
					if kind == "tcp" {
						cs = tcpGroup(b, ranks, TCPOptions{Timeout: time.Minute})
					} else {
						cs, _ = NewLocal(ranks)
					}
					bufs := make([][]float32, ranks)
					for r := range bufs {
						bufs[r] = rankData(r, n)
					}
					b.SetBytes(int64(4 * n))
					b.ResetTimer()
					var wg sync.WaitGroup
					for r, c := range cs {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for range b.N {
								var err error
								if kind == "naive" {
									err = c.(*local).naiveAllReduce(bufs[r])
								} else {
									err = c.AllReduce(bufs[r], Sum)
								}
								if err != nil {
									b.Error(err)
									return
								}
							}
						}()
					}
					wg.Wait()
					b.StopTimer()
					for _, c := range cs {
						c.Close()
					}
				})
			}
		}
	}
}
