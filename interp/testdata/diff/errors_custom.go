package main

import (
	"errors"
	"fmt"
)

var ErrEmpty = errors.New("empty input")

type ParseError struct {
	Line int
	Err  error
}

func (e ParseError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e ParseError) Unwrap() error { return e.Err }

func parse(s string) error {
	if s == "" {
		return ParseError{3, ErrEmpty}
	}
	return nil
}

func main() {
	err := parse("")
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrEmpty))
	fmt.Println(parse("x") == nil)
}
