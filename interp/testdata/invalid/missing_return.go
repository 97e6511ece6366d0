package main

import "fmt"

func f(x int) int {
	if x > 0 {
		return 1
	}
}

func main() {
	fmt.Println(f(1))
}
