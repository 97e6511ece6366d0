package main

import (
	"errors"
	"fmt"
)

func main() {
	defer fmt.Println("deferred runs")
	panic(errors.New("bad thing"))
}
