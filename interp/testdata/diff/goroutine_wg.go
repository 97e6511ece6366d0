package main

import (
	"fmt"
	"sync"
)

func main() {
	var wg sync.WaitGroup
	results := make([]int, 5)
	for i := range 5 {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			results[k] = k * k
		}(i)
	}
	wg.Wait()
	fmt.Println(results)
}
