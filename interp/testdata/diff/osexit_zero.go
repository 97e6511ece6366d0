package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Println("bye")
	os.Exit(0)
	fmt.Println("never")
}
