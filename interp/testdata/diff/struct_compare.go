package main

import "fmt"

type P struct {
	X, Y int
	Tag  string
}

func main() {
	a := P{1, 2, "t"}
	b := P{1, 2, "t"}
	c := P{X: 1}
	fmt.Println(a == b, a == c, c.Tag == "")
	arr1 := [3]int{1, 2, 3}
	arr2 := [3]int{1, 2, 3}
	fmt.Println(arr1 == arr2)
	type K struct{ a [2]int }
	m := map[K]bool{{[2]int{1, 2}}: true}
	fmt.Println(m[K{[2]int{1, 2}}])
	var i, j any = a, b
	fmt.Println(i == j)
}
