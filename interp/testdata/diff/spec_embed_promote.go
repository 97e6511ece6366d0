package main

import "fmt"

type Base struct{ ID int }

func (b Base) Describe() string { return fmt.Sprintf("base %d", b.ID) }
func (b *Base) SetID(id int)    { b.ID = id }

type Named struct{ Name string }

func (n Named) Hello() string { return "hi " + n.Name }

type Thing struct {
	Base
	*Named
	Extra int
}

type Describer interface{ Describe() string }

func main() {
	t := Thing{Base: Base{1}, Named: &Named{"t"}, Extra: 5}
	fmt.Println(t.Describe(), t.Hello(), t.ID, t.Name)
	t.SetID(7)
	fmt.Println(t.ID, t.Base.ID)
	var d Describer = t
	fmt.Println(d.Describe())
	t.Name = "u"
	fmt.Println(t.Named.Name, t.Hello())
	pt := &t
	pt.SetID(9)
	fmt.Println(pt.Describe())
}
