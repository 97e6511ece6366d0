package main

import "fmt"

type registry struct {
	items map[string]int
}

func main() {
	r := registry{}
	fmt.Println(len(r.items), r.items["x"])
	r.items["x"] = 1
	fmt.Println("unreachable")
}
