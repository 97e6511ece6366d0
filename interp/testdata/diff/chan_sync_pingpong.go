package main

import "fmt"

func main() {
	ping := make(chan int)
	pong := make(chan int)
	done := make(chan []int)
	go func() {
		var seen []int
		for v := range ping {
			seen = append(seen, v)
			pong <- v + 1
		}
		done <- seen
	}()
	v := 0
	for range 5 {
		ping <- v
		v = <-pong * 2
	}
	close(ping)
	fmt.Println(<-done, v)
	sem := make(chan struct{}, 2)
	results := make([]int, 6)
	fin := make(chan bool)
	for i := range 6 {
		go func() {
			sem <- struct{}{}
			results[i] = i * i
			<-sem
			fin <- true
		}()
	}
	for range 6 {
		<-fin
	}
	fmt.Println(results)
}
