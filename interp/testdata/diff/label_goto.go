package main

import "fmt"

func main() {
	i := 0
loop:
	if i < 3 {
		fmt.Println("i", i)
		i++
		goto loop
	}
	fmt.Println("end")
}
