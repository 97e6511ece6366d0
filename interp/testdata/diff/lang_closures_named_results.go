package main

import (
	"errors"
	"fmt"
)

func process(items []string) (count int, err error) {
	addErr := func(e error) { err = errors.Join(err, e) }
	inc := func() { count++ }
	for _, it := range items {
		if it == "" {
			addErr(errors.New("empty item"))
			continue
		}
		inc()
	}
	return
}

func safeDiv(a, b int) (res int, ok bool) {
	defer func() {
		if recover() != nil {
			res, ok = 0, false
		}
	}()
	return a / b, true
}

func main() {
	fmt.Println(process([]string{"a", "", "b", ""}))
	fmt.Println(process(nil))
	fmt.Println(safeDiv(7, 2))
	fmt.Println(safeDiv(1, 0))
}
