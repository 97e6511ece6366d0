package main

import (
	"fmt"
	"sync"
)

func main() {
	var wg sync.WaitGroup
	errs := make(chan string, 3)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs <- fmt.Sprint(r)
				}
			}()
			if k == 1 {
				panic("worker failed")
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		fmt.Println(e)
	}
}
