package main

import "fmt"

type P struct{ x int }

func main() {
	m := map[string]P{"a": {1}}
	m["a"].x = 2
	fmt.Println(m)
}
