package main

import "fmt"

func main() {
	a := make(chan int)
	b := make(chan string)
	quit := make(chan struct{})
	go func() {
		for i := range 3 {
			a <- i
		}
		b <- "done"
		close(quit)
	}()
	count := 0
	for {
		select {
		case v := <-a:
			count += v
		case s := <-b:
			fmt.Println("b:", s)
		case <-quit:
			fmt.Println("count", count)
			return
		}
	}
}
