package main

import (
	"fmt"
	"sync"
)

type job struct {
	id int
	n  int
}

type result struct {
	id  int
	sum int
}

func worker(jobs <-chan job, out chan<- result, wg *sync.WaitGroup) {
	defer wg.Done()
	for j := range jobs {
		s := 0
		for k := 1; k <= j.n; k++ {
			s += k
		}
		out <- result{j.id, s}
	}
}

func main() {
	jobs := make(chan job)
	out := make(chan result, 20)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go worker(jobs, out, &wg)
	}
	for i := range 20 {
		jobs <- job{i, i * 10}
	}
	close(jobs)
	wg.Wait()
	close(out)
	sums := make([]int, 20)
	for r := range out {
		sums[r.id] = r.sum
	}
	fmt.Println(sums[:5], sums[19])
	total := 0
	for _, s := range sums {
		total += s
	}
	fmt.Println(total)
}
