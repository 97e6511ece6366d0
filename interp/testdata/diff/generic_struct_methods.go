package main

import "fmt"

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func (p Pair[K, V]) String() string { return fmt.Sprintf("%v=%v", p.Key, p.Val) }

type OrderedMap[K comparable, V any] struct {
	keys []K
	m    map[K]V
}

func NewOrderedMap[K comparable, V any]() *OrderedMap[K, V] {
	return &OrderedMap[K, V]{m: map[K]V{}}
}

func (o *OrderedMap[K, V]) Set(k K, v V) {
	if _, ok := o.m[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.m[k] = v
}

func (o *OrderedMap[K, V]) Pairs() []Pair[K, V] {
	out := make([]Pair[K, V], 0, len(o.keys))
	for _, k := range o.keys {
		out = append(out, Pair[K, V]{k, o.m[k]})
	}
	return out
}

func main() {
	om := NewOrderedMap[string, int]()
	om.Set("z", 1)
	om.Set("a", 2)
	om.Set("z", 3)
	for _, p := range om.Pairs() {
		fmt.Println(p.String())
	}
	p := Pair[int, []string]{1, []string{"x"}}
	fmt.Println(p.Key, p.Val)
}
