package main

import (
	"fmt"
	"os"
)

func main() {
	defer fmt.Println("!")
	fmt.Println("before")
	os.Exit(3)
}
