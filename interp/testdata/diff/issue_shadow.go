package main

import "fmt"

func main() {
	for _, c := range []struct{ a, b int }{{1, 2}, {3, 4}} {
		c := c
		fmt.Println(c.a, c.b)
	}
}
