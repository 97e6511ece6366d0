package main

import (
	"fmt"
	"strconv"
)

func main() {
	x := strconv.Atoi("1")
	fmt.Println(x)
}
