package main

import "fmt"

func get(xs []string, i int) string { return xs[i] }

func main() {
	xs := []string{"a", "b"}
	fmt.Println(get(xs, 1))
	fmt.Println(get(xs, 2))
}
