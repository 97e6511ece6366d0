package main

import "fmt"

type Pool struct {
	Jobs    chan int
	Results chan int
}

func (p *Pool) Work() {
	for j := range p.Jobs {
		p.Results <- j * j
	}
	close(p.Results)
}

func main() {
	p := &Pool{Jobs: make(chan int, 4), Results: make(chan int, 4)}
	go p.Work()
	for i := 1; i <= 3; i++ {
		p.Jobs <- i
	}
	close(p.Jobs)
	sum := 0
	for {
		v, ok := <-p.Results
		if !ok {
			break
		}
		sum += v
	}
	fmt.Println("sum", sum)
	select {
	case v, ok := <-p.Results:
		fmt.Println("closed", v, ok)
	}
}
