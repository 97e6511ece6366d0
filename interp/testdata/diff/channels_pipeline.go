package main

import "fmt"

func gen(nums ...int) <-chan int {
	out := make(chan int)
	go func() {
		for _, n := range nums {
			out <- n
		}
		close(out)
	}()
	return out
}

func sq(in <-chan int) <-chan int {
	out := make(chan int)
	go func() {
		for n := range in {
			out <- n * n
		}
		close(out)
	}()
	return out
}

func main() {
	for v := range sq(sq(gen(1, 2, 3))) {
		fmt.Println(v)
	}
	sem := make(chan struct{}, 2)
	results := make([]int, 5)
	done := make(chan bool)
	for i := 0; i < 5; i++ {
		go func() {
			sem <- struct{}{}
			results[i] = i * 10
			<-sem
			done <- true
		}()
	}
	for i := 0; i < 5; i++ {
		<-done
	}
	fmt.Println(results)
	ch := make(chan int, 3)
	ch <- 1
	ch <- 2
	fmt.Println(len(ch), cap(ch))
	close(ch)
	for v := range ch {
		fmt.Println("drain", v)
	}
	v, ok := <-ch
	fmt.Println(v, ok)
}
