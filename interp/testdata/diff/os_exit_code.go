package main

import (
	"fmt"
	"os"
)

func main() {
	defer fmt.Println("deferred, not printed")
	fmt.Println("before")
	if len(os.Args) > 5 {
		return
	}
	os.Exit(3)
}
