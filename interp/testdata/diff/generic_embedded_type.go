package main

import "fmt"

type Box[T any] struct {
	val T
}

func (b *Box[T]) Set(v T) { b.val = v }
func (b Box[T]) Get() T   { return b.val }

type Labeled struct {
	Box[int]
	Label string
}

type Cache[K comparable, V any] struct {
	data map[K]V
	hits int
}

func (c *Cache[K, V]) Get(k K, make func() V) V {
	if v, ok := c.data[k]; ok {
		c.hits++
		return v
	}
	if c.data == nil {
		c.data = map[K]V{}
	}
	v := make()
	c.data[k] = v
	return v
}

func main() {
	l := Labeled{Label: "n"}
	l.Set(5)
	fmt.Println(l.Get(), l.Label, l.val)
	var c Cache[string, []int]
	calls := 0
	mk := func() []int { calls++; return []int{calls} }
	fmt.Println(c.Get("a", mk), c.Get("a", mk), c.Get("b", mk), c.hits, calls)
}
