package main

import "fmt"

func main() {
	for i, j := range 3 {
		fmt.Println(i, j)
	}
}
