package main

import "fmt"

type Point struct{ X, Y int }

func main() {
	p := Point{1, 2}
	fmt.Printf("%v %+v %#v %T\n", p, p, p, p)
	fmt.Println(p, &p)
	s := fmt.Sprintf("%v", []*Point{})
	fmt.Println(s)
}
