package main

import (
	"fmt"
	"os"
)

func check(n int) {
	if n > 2 {
		fmt.Println("too big:", n)
		os.Exit(7)
	}
}

func main() {
	for i := range 5 {
		check(i)
		fmt.Println("ok", i)
	}
}
