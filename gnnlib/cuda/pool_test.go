package cuda

import (
	"fmt"
	"slices"
	"strings"
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
		round()
		// What a round reserves depends on how the goroutines interleave
		// (twice the first round's was exceeded once on a loaded machine),
		// but a cache that reuses its blocks never holds more than the
		// largest set that can be live at once: 8 goroutines holding 3
		// blocks of each size, doubled for the rounding of blocks. One
		// that did not reuse them would hold what 3,200 allocations take.
		var most int64
		for _, n := range sizes {
			most += 8 * 3 * 2 * n
		}
		if s, _ = d.MemStats(); s.InUse != 0 || s.Reserved > most {
			t.Errorf("fast path %t: after the second round %+v, want nothing in use and at most %d reserved", fast, s, most)
		}
	}
	tune.PoolFastPath = true
}

// TestAsyncLaunch checks posted launches (tune.AsyncLaunch) on a recording
// driver: they reach the driver in the order queued, interleaved with
// waiting calls, and a failed launch's error comes back from the next
// waiting call, once.
func TestAsyncLaunch(t *testing.T) {
	d, drv := openRecorder(t) // pins tune.AsyncLaunch off until the test ends
	tune.AsyncLaunch = true
	var want []string
	for i := 0; i < 600; i++ {
		name := fmt.Sprint("k", i)
		want = append(want, name)
		if err := d.launch(name, 1, 32); err != nil {
			t.Fatal(err)
		}
		if i%100 == 0 {
			if _, err := d.Empty(4, 4); err != nil { // a waiting call between launches
				t.Fatal(err)
			}
		}
	}
	if err := d.Synchronize(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range drv.launches {
		got = append(got, l.kernel)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("launches reached the driver as %v..., want %v...", got[:5], want[:5])
	}
	drv.fail = "bad"
	if err := d.launch("bad", 1, 32); err != nil {
		t.Errorf("posted launch returned %v, want nil (the error comes later)", err)
	}
	if err := d.Synchronize(); err == nil || !strings.Contains(err.Error(), "bad") {
		t.Errorf("Synchronize after a failed posted launch = %v, want its error", err)
	}
	if err := d.Synchronize(); err != nil {
		t.Errorf("second Synchronize = %v, want nil (the error is reported once)", err)
	}
}
