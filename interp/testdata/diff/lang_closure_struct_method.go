package main

import "fmt"

type Acc struct{ total int }

func (a *Acc) Adder() func(int) int {
	return func(n int) int {
		a.total += n
		return a.total
	}
}

func main() {
	a := &Acc{}
	add := a.Adder()
	add(3)
	add(4)
	fmt.Println(a.total, add(0))
}
