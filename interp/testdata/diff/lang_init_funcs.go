package main

import "fmt"

var registry = map[string]int{}
var order []string

func init() {
	registry["a"] = 1
	order = append(order, "init1")
}

func init() {
	registry["b"] = len(registry) + 1
	order = append(order, "init2")
}

var computed = compute()

func compute() int {
	order = append(order, "var")
	return 42
}

func main() {
	fmt.Println(order, registry["a"], registry["b"], computed)
}
