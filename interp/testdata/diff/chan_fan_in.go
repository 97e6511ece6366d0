package main

import (
	"fmt"
	"sort"
	"sync"
)

func producer(id, n int) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		for i := range n {
			ch <- fmt.Sprintf("p%d-%d", id, i)
		}
	}()
	return ch
}

func merge(chs ...<-chan string) <-chan string {
	out := make(chan string)
	var wg sync.WaitGroup
	for _, c := range chs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range c {
				out <- v
			}
		}()
	}
	go func() { wg.Wait(); close(out) }()
	return out
}

func main() {
	var all []string
	for v := range merge(producer(1, 3), producer(2, 2), producer(3, 1)) {
		all = append(all, v)
	}
	sort.Strings(all)
	fmt.Println(len(all), all)
}
