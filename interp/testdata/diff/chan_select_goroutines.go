package main

// Several goroutines in one select statement at once, each on channels
// of its own: each must receive only what it sent (yaegi shared one set
// of cases per select statement, and the pumps received each other's
// values or hung).

import (
	"fmt"
	"sync"
	"time"
)

func pump(id int, n int, quit chan struct{}) (got, wrong int) {
	ch := make(chan int, 1)
	for k := 0; k < n; k++ {
		ch <- id
		select {
		case v := <-ch:
			if v == id {
				got++
			} else {
				wrong++
			}
		case <-quit:
			return
		}
	}
	return
}

func main() {
	const workers, n = 4, 2000
	quit := make(chan struct{})
	var wg sync.WaitGroup
	got := make([]int, workers)
	wrong := make([]int, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			got[w], wrong[w] = pump(w, n, quit)
		}(w)
	}
	finished := make(chan bool)
	go func() { wg.Wait(); close(finished) }()
	timer := time.NewTimer(5 * time.Second)
	select {
	case <-finished:
		timer.Stop()
	case <-timer.C:
		close(quit) // a pump stuck in its select (yaegi's shared cases)
		<-finished
	}
	for w := 0; w < workers; w++ {
		fmt.Println("pump", w, "received", got[w], "of its own, wrong", wrong[w])
	}
}
