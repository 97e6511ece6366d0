package main

import "fmt"

type point struct{ x, y int }

func main() {
	p := new(42)
	fmt.Println(*p)
	s := new("hi")
	*s += "!"
	fmt.Println(*s)
	q := new(point{1, 2})
	fmt.Println(q.x, q.y)
	r := new(int)
	fmt.Println(*r)
	f := new(float64(1.5) * 2)
	fmt.Println(*f)
}
