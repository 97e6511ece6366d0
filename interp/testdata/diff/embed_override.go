package main

import "fmt"

type Base struct{ id int }

func (b Base) Describe() string { return fmt.Sprintf("base %d", b.id) }
func (b Base) ID() int          { return b.id }

type Derived struct {
	Base
	name string
}

func (d Derived) Describe() string { return "derived " + d.name }

type describer interface{ Describe() string }

func main() {
	d := Derived{Base{7}, "x"}
	var i describer = d
	fmt.Println(i.Describe(), d.Base.Describe(), d.ID())
}
