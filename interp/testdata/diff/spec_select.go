package main

import (
	"fmt"
	"time"
)

func main() {
	c := make(chan int)
	done := make(chan struct{})
	go func() {
		for i := 0; i < 3; i++ {
			c <- i
		}
		close(done)
	}()
	for {
		select {
		case v := <-c:
			fmt.Println("got", v)
		case <-done:
			fmt.Println("done")
			goto end
		}
	}
end:
	select {
	case v, ok := <-c:
		fmt.Println(v, ok)
	default:
		fmt.Println("empty")
	}
	t := time.After(5 * time.Millisecond)
	<-t
	fmt.Println("timer")
	buf := make(chan int, 1)
	select {
	case buf <- 1:
		fmt.Println("sent")
	default:
		fmt.Println("full")
	}
	select {
	case buf <- 2:
		fmt.Println("sent")
	default:
		fmt.Println("full")
	}
}
