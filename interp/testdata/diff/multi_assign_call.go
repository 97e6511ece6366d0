// A tuple assignment (not a definition) whose right side has a method call
// before other values.
package main

import "fmt"

type T struct{ n int }

func (t *T) Get(k int) *T { return &T{t.n + k} }

func main() {
	labels := []int{1, 2, 3, 4, 5}
	x := &T{10}
	var a, b *T
	var c []int
	a, b, c = x.Get(1), x.Get(2), labels[:3]
	fmt.Println(a.n, b.n, c)
	var d *T
	var e int
	d, e = x.Get(3), labels[4]
	fmt.Println(d.n, e)
}
