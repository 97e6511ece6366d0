package main

import "fmt"

func trySend(ch chan int, v int) bool {
	select {
	case ch <- v:
		return true
	default:
		return false
	}
}

func tryRecv(ch chan int) (int, bool) {
	select {
	case v := <-ch:
		return v, true
	default:
		return 0, false
	}
}

func main() {
	ch := make(chan int, 2)
	fmt.Println(trySend(ch, 1), trySend(ch, 2), trySend(ch, 3))
	fmt.Println(len(ch), cap(ch))
	fmt.Println(tryRecv(ch))
	fmt.Println(tryRecv(ch))
	fmt.Println(tryRecv(ch))
	var nilCh chan int
	select {
	case v := <-nilCh:
		fmt.Println("impossible", v)
	default:
		fmt.Println("nil channel blocks")
	}
	done := make(chan struct{})
	close(done)
	select {
	case _, ok := <-done:
		fmt.Println("closed", ok)
	default:
		fmt.Println("not closed")
	}
}
