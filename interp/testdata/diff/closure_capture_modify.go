package main

import "fmt"

func main() {
	x := 1
	inc := func() { x++ }
	inc()
	inc()
	fmt.Println(x)
	add := func(d int) func() int { return func() int { x += d; return x } }
	fmt.Println(add(10)(), x)
}
