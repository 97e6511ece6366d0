package main

import "fmt"

func main() {
	x := 1
	switch x {
	case 1:
		fmt.Println("one")
	case 1:
		fmt.Println("uno")
	}
}
