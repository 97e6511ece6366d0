package main

import (
	"fmt"
	"os"
)

func main() {
	args := os.Args[1:]
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: prog FILE")
		fmt.Println("no arguments")
		os.Exit(1)
	}
	fmt.Println(args)
}
