package main

import (
	"fmt"
	"sync"
)

var calls int

func expensive() int {
	calls++
	return 42
}

func main() {
	var once sync.Once
	for range 3 {
		once.Do(func() { fmt.Println("init once") })
	}
	get := sync.OnceValue(expensive)
	fmt.Println(get(), get(), calls)
	pair := sync.OnceValues(func() (string, error) {
		calls++
		return "cfg", nil
	})
	v, err := pair()
	v2, _ := pair()
	fmt.Println(v, err, v2, calls)
	f := sync.OnceFunc(func() { fmt.Println("once func") })
	f()
	f()
	var wg sync.WaitGroup
	results := make([]int, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = get() + i
		}()
	}
	wg.Wait()
	fmt.Println(results, calls)
}
