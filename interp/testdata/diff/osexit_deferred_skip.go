package main

import (
	"fmt"
	"os"
)

func cleanup() { fmt.Println("cleanup never printed") }

func run() int {
	defer cleanup()
	fmt.Println("working")
	return 4
}

func main() {
	code := run()
	defer fmt.Println("main defer skipped")
	fmt.Println("exiting with", code)
	os.Exit(code)
}
