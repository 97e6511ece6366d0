package main

import "fmt"

func main() {
	a := make(chan int)
	b := make(chan string)
	done := make(chan bool)
	go func() {
		for i := 0; i < 3; i++ {
			a <- i
		}
		b <- "end"
		close(done)
	}()
	count := 0
	for {
		select {
		case v := <-a:
			count += v
		case s := <-b:
			fmt.Println("b:", s)
		case <-done:
			fmt.Println("count", count)
			return
		}
	}
}
