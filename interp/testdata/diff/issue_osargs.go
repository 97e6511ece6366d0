package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Println(os.Args[1:], len(os.Args))
}
