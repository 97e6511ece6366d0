package main

import "fmt"

func modify(a [3]int)     { a[0] = 100 }
func modifyPtr(a *[3]int) { a[0] = 100 }

func main() {
	a := [3]int{1, 2, 3}
	b := a
	b[1] = 20
	modify(a)
	fmt.Println(a, b)
	modifyPtr(&a)
	fmt.Println(a, len(a))
	c := [...]string{2: "c", 0: "a"}
	fmt.Println(len(c), c)
	var grid [2][3]int
	grid[1][2] = 5
	fmt.Println(grid)
}
