package main

import "fmt"

type Shape interface{ Area() float64 }
type Sq struct{ s float64 }

func (q Sq) Area() float64 { return q.s * q.s }

func main() {
	vals := []any{1, "two", 3.0, []int{4}, nil, Sq{2}}
	for _, v := range vals {
		if i, ok := v.(int); ok {
			fmt.Println("int", i)
		} else if s, ok := v.(string); ok {
			fmt.Println("string", s)
		} else if f, ok := v.(float64); ok {
			fmt.Println("float", f)
		} else if sh, ok := v.(Shape); ok {
			fmt.Println("shape", sh.Area())
		} else {
			fmt.Println("other", v)
		}
	}
	var x any = 5
	n, ok := x.(string)
	fmt.Printf("%q %v\n", n, ok)
	var sh Shape
	_, ok = sh.(Sq)
	fmt.Println(ok)
}
