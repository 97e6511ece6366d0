package main

import (
	"fmt"
	"sort"
)

func worker(id int, jobs <-chan int, results chan<- [2]int) {
	for j := range jobs {
		results <- [2]int{j, j * 2}
	}
}

func main() {
	jobs := make(chan int, 10)
	results := make(chan [2]int, 10)
	for w := 1; w <= 3; w++ {
		go worker(w, jobs, results)
	}
	for j := 1; j <= 6; j++ {
		jobs <- j
	}
	close(jobs)
	var out [][2]int
	for range 6 {
		out = append(out, <-results)
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	fmt.Println(out)
}
