package main

import "fmt"

type Namer interface{ Name() string }
type Ager interface{ Age() int }

type Person struct {
	name string
	age  int
}

func (p Person) Name() string { return p.name }
func (p Person) Age() int     { return p.age }

func main() {
	var n Namer = Person{"ann", 40}
	if a, ok := n.(Ager); ok {
		fmt.Println(n.Name(), a.Age())
	}
	var things []Namer = []Namer{Person{"b", 1}, Person{"c", 2}}
	for _, t := range things {
		fmt.Print(t.Name())
	}
	fmt.Println()
}
