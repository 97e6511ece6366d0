package main

import "fmt"

type Inner struct {
	A int
	b string
}

type Outer struct {
	Name  string
	In    Inner
	Ptr   *Inner
	Tags  []string
	Props map[string]int
}

func main() {
	o := Outer{"o", Inner{1, "x"}, nil, []string{"t"}, map[string]int{"k": 1}}
	fmt.Printf("%v\n", o)
	fmt.Printf("%+v\n", o)
	fmt.Printf("%#v\n", o.In)
	fmt.Printf("%T %T\n", o, o.In)
}
