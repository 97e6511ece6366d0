package main

import "fmt"

type Counter interface {
	Inc()
	Get() int
}

type inner struct{ n int }

func (i *inner) Inc()    { i.n++ }
func (i inner) Get() int { return i.n }

type ByPtr struct{ *inner }
type ByVal struct{ inner }

func use(c Counter) int {
	c.Inc()
	c.Inc()
	return c.Get()
}

func main() {
	a := ByPtr{&inner{}}
	fmt.Println(use(a), a.Get())
	b := &ByVal{}
	fmt.Println(use(b), b.Get())
	var c Counter = &inner{10}
	fmt.Println(use(c))
	_, ok := any(ByVal{}).(Counter)
	_, ok2 := any(&ByVal{}).(Counter)
	_, ok3 := any(ByPtr{}).(Counter)
	fmt.Println(ok, ok2, ok3)
}
