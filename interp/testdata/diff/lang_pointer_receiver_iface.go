package main

import "fmt"

type Counter interface {
	Inc()
	Get() int
}

type c struct{ n int }

func (x *c) Inc()     { x.n++ }
func (x *c) Get() int { return x.n }

func bump(k Counter, times int) {
	for i := 0; i < times; i++ {
		k.Inc()
	}
}

func main() {
	v := &c{}
	bump(v, 3)
	fmt.Println(v.Get(), v.n)
}
