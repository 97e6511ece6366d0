package main

import "fmt"

type Shape interface{ Area() float64 }
type Rect struct{ w, h float64 }
type Circle struct{ r float64 }

func (r Rect) Area() float64   { return r.w * r.h }
func (c Circle) Area() float64 { return 3 * c.r * c.r }

func main() {
	shapes := []Shape{Rect{2, 3}, Circle{1}}
	total := 0.0
	for _, s := range shapes {
		total += s.Area()
		if r, ok := s.(Rect); ok {
			fmt.Println("rect", r.w, r.h)
		}
	}
	fmt.Println(total)
}
