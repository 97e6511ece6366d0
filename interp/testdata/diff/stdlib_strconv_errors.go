package main

import (
	"errors"
	"fmt"
	"strconv"
)

func main() {
	_, err := strconv.Atoi("12a")
	var ne *strconv.NumError
	fmt.Println(errors.As(err, &ne), ne.Func, ne.Num, errors.Is(err, strconv.ErrSyntax))
	_, err = strconv.ParseInt("99999999999999999999", 10, 64)
	fmt.Println(err)
}
