package main

import (
	"fmt"
	"math"
	"sort"
)

type Shape interface {
	Area() float64
	Perimeter() float64
}

type Rect struct{ W, H float64 }
type Circle struct{ R float64 }

func (r Rect) Area() float64        { return r.W * r.H }
func (r Rect) Perimeter() float64   { return 2 * (r.W + r.H) }
func (c Circle) Area() float64      { return math.Pi * c.R * c.R }
func (c Circle) Perimeter() float64 { return 2 * math.Pi * c.R }

type byArea []Shape

func (b byArea) Len() int           { return len(b) }
func (b byArea) Less(i, j int) bool { return b[i].Area() < b[j].Area() }
func (b byArea) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

func main() {
	shapes := []Shape{Rect{3, 4}, Circle{1}, Rect{1, 1}}
	sort.Sort(byArea(shapes))
	for _, s := range shapes {
		fmt.Printf("%.2f %.2f\n", s.Area(), s.Perimeter())
	}
	var s Shape
	fmt.Println(s == nil)
	s = Rect{1, 2}
	if r, ok := s.(Rect); ok {
		fmt.Println("rect", r.W)
	}
	_, ok := s.(Circle)
	fmt.Println(ok)
}
