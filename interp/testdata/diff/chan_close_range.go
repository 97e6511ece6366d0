package main

import "fmt"

func gen(n int) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := range n {
			ch <- i * i
		}
	}()
	return ch
}

func main() {
	sum := 0
	for v := range gen(5) {
		sum += v
	}
	fmt.Println(sum)
	bc := make(chan string, 3)
	bc <- "a"
	bc <- "b"
	close(bc)
	for s := range bc {
		fmt.Print(s)
	}
	fmt.Println()
	v, ok := <-bc
	fmt.Printf("%q %v\n", v, ok)
	results := make(chan int, 10)
	for i := range 10 {
		results <- i
	}
	close(results)
	total := 0
	for r := range results {
		total += r
	}
	fmt.Println(total, len(results))
}
