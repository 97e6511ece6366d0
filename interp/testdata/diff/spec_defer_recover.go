package main

import (
	"errors"
	"fmt"
)

func order() {
	for i := 0; i < 3; i++ {
		defer fmt.Println("defer", i)
	}
	fmt.Println("body")
}

func safeDiv(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	return a / b, nil
}

func named() (x int) {
	defer func() { x *= 2 }()
	x = 5
	return x + 1
}

func nested() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New(fmt.Sprint("outer: ", r))
		}
	}()
	func() {
		defer func() {
			r := recover()
			panic(fmt.Sprint("re-panic ", r))
		}()
		panic("first")
	}()
	return nil
}

func main() {
	order()
	fmt.Println(safeDiv(6, 3))
	fmt.Println(safeDiv(1, 0))
	fmt.Println(named())
	fmt.Println(nested())
}
