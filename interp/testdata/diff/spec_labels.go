package main

import "fmt"

func main() {
outer:
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if j == 2 {
				continue outer
			}
			if i == 2 {
				break outer
			}
			fmt.Println(i, j)
		}
	}
	i := 0
loop:
	if i < 3 {
		fmt.Println("goto", i)
		i++
		goto loop
	}
	switch {
	case i == 3:
		fmt.Println("three")
		fallthrough
	case i == 4:
		fmt.Println("fell")
	default:
		fmt.Println("no")
	}
}
