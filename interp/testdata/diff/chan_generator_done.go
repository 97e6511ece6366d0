package main

import "fmt"

func counter(done <-chan struct{}) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := 0; ; i++ {
			select {
			case ch <- i:
			case <-done:
				return
			}
		}
	}()
	return ch
}

func main() {
	done := make(chan struct{})
	c := counter(done)
	var got []int
	for v := range c {
		got = append(got, v)
		if v == 4 {
			close(done)
			break
		}
	}
	fmt.Println(got)
	for range c {
	}
	fmt.Println("drained")
}
