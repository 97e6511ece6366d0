package main

import (
	"fmt"
	"os"
)

func check(err error) {
	if err != nil {
		fmt.Println("fatal:", err)
		os.Exit(1)
	}
}

func main() {
	defer fmt.Println("not printed")
	check(nil)
	fmt.Println("ok so far")
	check(fmt.Errorf("disk full"))
}
