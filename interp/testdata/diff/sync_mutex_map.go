package main

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

type Counter struct {
	mu sync.Mutex
	m  map[string]int
}

func (c *Counter) Add(k string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[k]++
}

func main() {
	c := &Counter{m: map[string]int{}}
	text := "a b c a b a d e a c"
	var wg sync.WaitGroup
	for _, w := range strings.Fields(text) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Add(w)
		}()
	}
	wg.Wait()
	keys := make([]string, 0, len(c.m))
	for k := range c.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Print(k, ":", c.m[k], " ")
	}
	fmt.Println()
	var rw sync.RWMutex
	shared := 0
	var wg2 sync.WaitGroup
	for i := range 5 {
		wg2.Add(1)
		go func() {
			defer wg2.Done()
			rw.Lock()
			shared += i
			rw.Unlock()
		}()
	}
	wg2.Wait()
	rw.RLock()
	fmt.Println(shared)
	rw.RUnlock()
}
