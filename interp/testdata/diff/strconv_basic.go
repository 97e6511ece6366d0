package main

import (
	"fmt"
	"strconv"
)

func main() {
	n, err := strconv.Atoi("123")
	fmt.Println(n+1, err)
	_, err = strconv.Atoi("x")
	fmt.Println(err)
	f, _ := strconv.ParseFloat("2.5", 64)
	b, _ := strconv.ParseBool("true")
	i, _ := strconv.ParseInt("-ff", 16, 64)
	fmt.Println(f, b, i)
	fmt.Println(strconv.Itoa(42)+"!", strconv.Quote("a\"b"), strconv.FormatInt(255, 2), strconv.FormatFloat(1.5, 'f', 3, 64))
}
