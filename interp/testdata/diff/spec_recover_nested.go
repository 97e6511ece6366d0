package main

import (
	"errors"
	"fmt"
)

func inner() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("inner recovered: %v", r)
		}
	}()
	defer func() {
		defer func() {
			if r := recover(); r != nil {
				fmt.Println("nested recover:", r)
				panic("second")
			}
		}()
		panic("from deferred")
	}()
	panic("first")
}

func noPanic() (ok bool) {
	defer func() { ok = recover() == nil }()
	return false
}

func wrap() (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = errors.Join(errors.New("wrapped"), e)
			}
		}
	}()
	var m map[string]int
	m["x"] = 1
	return nil
}

func main() {
	fmt.Println(inner())
	fmt.Println(noPanic())
	fmt.Println(wrap() != nil)
}
