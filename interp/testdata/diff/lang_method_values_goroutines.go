package main

import (
	"fmt"
	"sync"
)

type Acc struct {
	mu  sync.Mutex
	sum int
}

func (a *Acc) Add(n int) {
	a.mu.Lock()
	a.sum += n
	a.mu.Unlock()
}

func main() {
	a := &Acc{}
	add := a.Add
	var wg sync.WaitGroup
	for i := 1; i <= 50; i++ {
		wg.Add(1)
		go func(n int) {
			defer wg.Done()
			add(n)
		}(i)
	}
	wg.Wait()
	fmt.Println(a.sum)
	fs := map[string]func(int){"add": a.Add}
	fs["add"](100)
	fmt.Println(a.sum)
}
