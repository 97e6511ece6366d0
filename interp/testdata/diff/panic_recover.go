package main

import (
	"errors"
	"fmt"
)

func safeDiv(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	return a / b, nil
}

func main() {
	fmt.Println(safeDiv(6, 3))
	_, err := safeDiv(1, 0)
	fmt.Println(err)
	fmt.Println(errors.Unwrap(err) == nil)
}
