package main

import "fmt"

type Inner struct{ N int }

func (i *Inner) Get() int {
	if i == nil {
		return -1
	}
	return i.N
}

type Outer struct {
	*Inner
	Name string
}

func main() {
	o := Outer{Name: "x"}
	fmt.Println(o.Get(), o.Inner == nil)
	o.Inner = &Inner{5}
	fmt.Println(o.Get(), o.N)
	var ip *Inner
	fmt.Println(ip.Get())
	defer func() { fmt.Println("recovered:", recover() != nil) }()
	o2 := Outer{}
	fmt.Println(o2.N)
}
