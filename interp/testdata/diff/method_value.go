package main

import "fmt"

type T struct{ n int }

func (t T) Get() int   { return t.n }
func (t *T) Set(n int) { t.n = n }

func main() {
	t := T{1}
	get := t.Get
	set := t.Set
	set(5)
	fmt.Println(get(), t.Get(), T.Get(t))
	f := (*T).Set
	f(&t, 9)
	fmt.Println(t.n)
}
