package main

import "fmt"

func main() {
	for i := 0; i < 5; i++ {
		switch {
		case i == 1:
			continue
		case i == 3:
			break
		default:
			fmt.Println("i", i)
		}
	}
sel:
	for {
		select {
		default:
			break sel
		}
	}
	fmt.Println("out")
}
