package main

import (
	"errors"
	"fmt"
)

type result struct {
	n   int
	err error
}

func recv(c chan int) int { return <-c }

func recvOk(c chan string) (string, bool) {
	v, ok := <-c
	return v, ok
}

func first(c <-chan result) (int, error) {
	r := <-c
	return r.n, r.err
}

func main() {
	c := make(chan int, 2)
	c <- 4
	c <- 5
	fmt.Println(recv(c), recv(c))
	s := make(chan string, 1)
	s <- "hi"
	close(s)
	fmt.Println(recvOk(s))
	fmt.Println(recvOk(s))
	rc := make(chan result, 2)
	rc <- result{1, nil}
	rc <- result{0, errors.New("bad")}
	fmt.Println(first(rc))
	fmt.Println(first(rc))
	done := make(chan bool)
	go func() { done <- true }()
	wait := func() bool { return <-done }
	fmt.Println(wait())
}
