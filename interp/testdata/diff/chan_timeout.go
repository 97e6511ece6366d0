package main

import (
	"fmt"
	"time"
)

func main() {
	ch := make(chan int)
	go func() {
		time.Sleep(5 * time.Millisecond)
		ch <- 1
	}()
	select {
	case v := <-ch:
		fmt.Println("got", v)
	case <-time.After(2 * time.Second):
		fmt.Println("timeout")
	}
}
