package main

import "fmt"

func main() {
	ch := make(chan string, 3)
	ch <- "a"
	ch <- "b"
	fmt.Println(len(ch), cap(ch))
	close(ch)
	for s := range ch {
		fmt.Println(s)
	}
	v, ok := <-ch
	fmt.Printf("%q %v\n", v, ok)
}
