package main

import "fmt"

func modArr(a [3]int)  { a[0] = 100 }
func modSl(s []int)    { s[0] = 100 }
func modPtr(a *[3]int) { a[1] = 200 }

func main() {
	a := [3]int{1, 2, 3}
	b := a
	b[0] = 9
	fmt.Println(a, b)
	modArr(a)
	fmt.Println(a)
	modSl(a[:])
	fmt.Println(a)
	modPtr(&a)
	fmt.Println(a)
	s := a[1:]
	s[0] = -1
	fmt.Println(a, s, len(s), cap(s))
	grid := [2][2]int{{1, 2}, {3, 4}}
	g2 := grid
	g2[1][1] = 0
	fmt.Println(grid, g2, grid == [2][2]int{{1, 2}, {3, 4}})
	p := &a
	for i := range p {
		p[i] *= 2
	}
	fmt.Println(a, len(p))
	arrs := [][2]string{{"a", "b"}, {"c", "d"}}
	for _, x := range arrs {
		x[0] = "z"
	}
	fmt.Println(arrs)
}
