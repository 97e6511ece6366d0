package main

import (
	"errors"
	"fmt"
	"strconv"
)

var ErrInvalid = errors.New("invalid input")

func parseAge(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("parseAge(%q): %w", s, err)
	}
	if n < 0 {
		return 0, fmt.Errorf("parseAge(%q): %w", s, ErrInvalid)
	}
	return n, nil
}

func load(vals []string) error {
	for i, v := range vals {
		if _, err := parseAge(v); err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
	}
	return nil
}

func main() {
	err := load([]string{"3", "-1"})
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrInvalid))
	err = load([]string{"x"})
	fmt.Println(err)
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		fmt.Println(ne.Func, ne.Num, ne.Err == strconv.ErrSyntax)
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		fmt.Printf("%T\n", e)
	}
	fmt.Println(load(nil) == nil)
}
