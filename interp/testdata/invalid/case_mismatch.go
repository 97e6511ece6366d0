package main

import "fmt"

func main() {
	x := 3
	switch x {
	case "a":
		fmt.Println(x)
	}
}
