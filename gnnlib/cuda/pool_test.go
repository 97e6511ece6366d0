package cuda

import (
	"sync"
	"testing"

	"github.com/gnnlab/gnnlab/gnnlib/cuda/internal/tune"
)

// TestPoolConcurrent allocates and frees buffers from several goroutines
// at once on a recording driver, with the allocator's fast path (cached
// blocks handed out on the allocating goroutine) and without: no block is
// handed out twice while live, the bytes in use return to zero, and the
// cache serves the second round without the driver. Run it with -race.
func TestPoolConcurrent(t *testing.T) {
	for _, fast := range []bool{true, false} {
		tune.PoolFastPath = fast
		d, _ := openRecorder(t)
		sizes := []int64{100, 4096, 1 << 20, 3 << 20}
		round := func() {
			var mu sync.Mutex
			live := map[uintptr]bool{}
			var wg sync.WaitGroup
			for w := 0; w < 8; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var held []*buffer
					for i := 0; i < 200; i++ {
						b, err := d.newBuffer(sizes[(w+i)%len(sizes)])
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						if live[b.ptr] {
							t.Errorf("block %#x handed out twice", b.ptr)
						}
						live[b.ptr] = true
						mu.Unlock()
						held = append(held, b)
						if i%3 == 2 {
							for _, h := range held {
								mu.Lock()
								delete(live, h.ptr)
								mu.Unlock()
								h.release()
							}
							held = held[:0]
						}
					}
					for _, h := range held {
						mu.Lock()
						delete(live, h.ptr)
						mu.Unlock()
						h.release()
					}
				}()
			}
			wg.Wait()
		}
		round()
		s, err := d.MemStats()
		if err != nil {
			t.Fatal(err)
		}
		if s.InUse != 0 || s.Peak == 0 || s.Reserved == 0 {
			t.Errorf("fast path %t: after the first round %+v, want nothing in use", fast, s)
		}
		reserved := s.Reserved
		round()
		if s, _ = d.MemStats(); s.InUse != 0 || s.Reserved > reserved*2 {
			t.Errorf("fast path %t: after the second round %+v (reserved %d after the first)", fast, s, reserved)
		}
	}
	tune.PoolFastPath = true
}
