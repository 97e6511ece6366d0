// Goroutines started from function literals in loops, nested, with
// parameters, captured loop variables and a named result: yaegi's frame
// slot of a literal was raced by its goroutines (a "call of nil function"
// crash at times, a data race under -race), fixed by rewrite_go.go.
package main

import (
	"fmt"
	"sort"
	"sync"
)

type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) inc(k string) {
	c.mu.Lock()
	c.n[k]++
	c.mu.Unlock()
}

func fanout(n int) (total int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var inner sync.WaitGroup
			for j := 0; j < 3; j++ {
				inner.Add(1)
				go func(d int) {
					defer inner.Done()
					mu.Lock()
					total += d
					mu.Unlock()
				}(i * j)
			}
			inner.Wait()
		}()
	}
	wg.Wait()
	return total
}

func main() {
	c := &counter{n: map[string]int{}}
	var wg sync.WaitGroup
	words := []string{"a", "b", "c"}
	for i := 0; i < 900; i++ {
		wg.Add(1)
		go func(w string) {
			defer wg.Done()
			c.inc(w)
		}(words[i%3])
	}
	wg.Wait()
	fmt.Println(c.n["a"], c.n["b"], c.n["c"])

	results := make(chan int, 100)
	for i := range 100 {
		go func() { results <- i * i }()
	}
	var sq []int
	for range 100 {
		sq = append(sq, <-results)
	}
	sort.Ints(sq)
	fmt.Println(sq[0], sq[1], sq[99], len(sq))

	fmt.Println(fanout(300), fanout(2))
}
