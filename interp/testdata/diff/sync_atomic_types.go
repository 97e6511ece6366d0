package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

type config struct{ name string }

func main() {
	var n atomic.Int64
	var flag atomic.Bool
	var u atomic.Uint32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				n.Add(1)
			}
			u.Add(2)
		}()
	}
	wg.Wait()
	fmt.Println(n.Load(), u.Load())
	fmt.Println(flag.CompareAndSwap(false, true), flag.Load(), flag.Swap(false))
	var p atomic.Pointer[config]
	fmt.Println(p.Load() == nil)
	p.Store(&config{"a"})
	old := p.Swap(&config{"b"})
	fmt.Println(old.name, p.Load().name)
	var v atomic.Value
	v.Store([]int{1, 2})
	fmt.Println(v.Load().([]int))
	var old32 int32 = 5
	fmt.Println(atomic.AddInt32(&old32, 3), atomic.CompareAndSwapInt32(&old32, 8, 0), old32)
}
