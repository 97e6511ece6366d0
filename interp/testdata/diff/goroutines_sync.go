package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

func worker(id int, jobs <-chan int, results chan<- [2]int, wg *sync.WaitGroup) {
	defer wg.Done()
	for j := range jobs {
		results <- [2]int{j, j * j}
	}
	_ = id
}

func main() {
	jobs := make(chan int, 10)
	results := make(chan [2]int, 10)
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go worker(w, jobs, results, &wg)
	}
	for i := 1; i <= 9; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(results)
	sum := 0
	for r := range results {
		sum += r[1]
	}
	fmt.Println("sum", sum)
	var n atomic.Int64
	var mu sync.Mutex
	total := 0
	var wg2 sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg2.Add(1)
		go func() {
			defer wg2.Done()
			n.Add(1)
			mu.Lock()
			total += i
			mu.Unlock()
		}()
	}
	wg2.Wait()
	fmt.Println(n.Load(), total)
	var once sync.Once
	for i := 0; i < 3; i++ {
		once.Do(func() { fmt.Println("once") })
	}
}
