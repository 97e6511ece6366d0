package main

import (
	"fmt"
	"sync"
)

func main() {
	var once sync.Once
	for i := 0; i < 3; i++ {
		once.Do(func() { fmt.Println("once") })
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fmt.Println("in goroutine")
	}()
	<-done
}
