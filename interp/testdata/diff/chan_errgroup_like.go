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
	for i := 1; i <= 10; i++ {
		g.Go(func() error {
			mu.Lock()
			sum += i
			mu.Unlock()
			return nil
		})
	}
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
