package main

import (
	"errors"
	"fmt"
)

func main() {
	defer fmt.Println("deferred runs before the crash")
	err := errors.New("fatal configuration error")
	fmt.Println("starting")
	panic(err)
}
