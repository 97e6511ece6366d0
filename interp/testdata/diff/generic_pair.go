package main

import "fmt"

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func MakePair[K comparable, V any](k K, v V) Pair[K, V] { return Pair[K, V]{k, v} }

func main() {
	p := MakePair("a", 1)
	fmt.Println(p.Key, p.Val)
}
