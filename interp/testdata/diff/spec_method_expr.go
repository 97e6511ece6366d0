package main

import "fmt"

type Vec struct{ X, Y int }

func (v Vec) Add(o Vec) Vec  { return Vec{v.X + o.X, v.Y + o.Y} }
func (v *Vec) Scale(k int)   { v.X *= k; v.Y *= k }
func (v Vec) String() string { return fmt.Sprintf("(%d,%d)", v.X, v.Y) }

func apply(f func(Vec, Vec) Vec, a, b Vec) Vec { return f(a, b) }

func main() {
	add := Vec.Add
	fmt.Println(add(Vec{1, 2}, Vec{3, 4}))
	fmt.Println(apply(Vec.Add, Vec{1, 1}, Vec{2, 2}))
	scale := (*Vec).Scale
	v := Vec{2, 3}
	scale(&v, 10)
	fmt.Println(v)
	str := Vec.String
	fmt.Println(str(v))
	pAdd := (*Vec).Add
	fmt.Println(pAdd(&v, Vec{1, 1}))
	fs := []func(*Vec, int){(*Vec).Scale}
	fs[0](&v, 2)
	fmt.Println(v.String())
}
