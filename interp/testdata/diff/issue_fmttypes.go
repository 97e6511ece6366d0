package main

import "fmt"

type point struct{ x, y int }

func main() {
	p := point{1, 2}
	fmt.Printf("%v %+v %#v %T\n", p, p, p, p)
	fmt.Printf("%v %+v\n", &p, []point{p, {3, 4}})
	fmt.Printf("%#v\n", []point{p})
	fmt.Println(fmt.Sprintf("%T %T %T", &p, []point{}, map[string]point{}))
}
