package main

import "fmt"

type T struct{ n int }

func (t *T) String() string { return fmt.Sprintf("T(%d)", t.n) }

func main() {
	t := &T{3}
	fmt.Println(t)
	fmt.Printf("%v %s\n", t, t)
}
