package main

import "fmt"

type Point struct{ X, Y int }

type Line struct {
	A, B Point
	Tag  string
}

func move(p Point) Point { p.X++; return p }
func movePtr(p *Point)   { p.X++ }

func main() {
	a := [3]int{1, 2, 3}
	b := a
	b[0] = 9
	fmt.Println(a, b, a == [3]int{1, 2, 3})
	p := Point{1, 2}
	q := move(p)
	movePtr(&p)
	fmt.Println(p, q, p == q, Point{} == Point{0, 0})
	l := Line{A: p, Tag: "t"}
	l2 := l
	l2.A.X = 100
	fmt.Printf("%v %+v\n", l, l2)
	m := map[Point]string{{1, 2}: "a"}
	m[Point{1, 2}] += "b"
	fmt.Println(m)
	arr := [...]string{2: "c", 0: "a"}
	fmt.Println(len(arr), arr)
	ps := []*Point{{1, 1}, {2, 2}}
	for _, pp := range ps {
		pp.Y *= 10
	}
	fmt.Println(*ps[0], *ps[1])
	anon := struct{ A, B int }{1, 2}
	fmt.Println(anon)
}
