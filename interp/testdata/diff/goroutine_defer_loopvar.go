package main

import (
	"fmt"
	"sort"
	"sync"
)

func main() {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var got []int
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				mu.Lock()
				got = append(got, i)
				mu.Unlock()
			}()
		}()
	}
	wg.Wait()
	sort.Ints(got)
	fmt.Println(got)

	results := make([]string, 3)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					results[i] = fmt.Sprint("recovered ", i, ": ", r)
				}
			}()
			if i == 1 {
				panic("one")
			}
			results[i] = fmt.Sprint("ok ", i)
		}()
	}
	wg.Wait()
	fmt.Println(results)
}
