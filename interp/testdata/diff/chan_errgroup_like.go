package main

import (
	"errors"
	"fmt"
	"sync"
)

type Group struct {
	wg   sync.WaitGroup
	once sync.Once
	err  error
}

func (g *Group) Go(f func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := f(); err != nil {
			g.once.Do(func() { g.err = err })
		}
	}()
}

func (g *Group) Wait() error {
	g.wg.Wait()
	return g.err
}

func main() {
	var g Group
	var mu sync.Mutex
	sum := 0
	add := func(n int) func() error {
		return func() error {
			mu.Lock()
			sum += n
			mu.Unlock()
			return nil
		}
	}
	g.Go(add(10))
	g.Go(add(45))
	fmt.Println(g.Wait(), sum)
	var g2 Group
	g2.Go(func() error { return errors.New("task failed") })
	g2.Go(func() error { return nil })
	fmt.Println(g2.Wait())
	var wg sync.WaitGroup
	out := make([]string, 3)
	for i, w := range []string{"x", "y", "z"} {
		wg.Go(func() { out[i] = w + w })
	}
	wg.Wait()
	fmt.Println(out)
}
