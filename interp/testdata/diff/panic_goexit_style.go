package main

import (
	"fmt"
	"strconv"
)

type parseError struct {
	line int
	msg  string
}

func parseAll(lines []string) (sum int, err error) {
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(parseError)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("line %d: %s", pe.line, pe.msg)
		}
	}()
	for i, l := range lines {
		n, e := strconv.Atoi(l)
		if e != nil {
			panic(parseError{i + 1, "not a number: " + l})
		}
		sum += n
	}
	return sum, nil
}

func main() {
	fmt.Println(parseAll([]string{"1", "2", "3"}))
	fmt.Println(parseAll([]string{"1", "two"}))
}
