package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

var ErrA = errors.New("a failed")
var ErrB = errors.New("b failed")

func validate(n int) error {
	var errs []error
	if n < 0 {
		errs = append(errs, fmt.Errorf("negative: %d", n))
	}
	if n%2 != 0 {
		errs = append(errs, ErrA)
	}
	if n > 100 {
		errs = append(errs, ErrB)
	}
	return errors.Join(errs...)
}

func main() {
	fmt.Println(validate(4) == nil)
	err := validate(-3)
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrA), errors.Is(err, ErrB))
	err = validate(101)
	fmt.Printf("%q\n", err.Error())
	w := fmt.Errorf("ctx: %w and %w", ErrA, ErrB)
	fmt.Println(w, errors.Is(w, ErrB))
	_, err = os.Open("/definitely/not/here")
	fmt.Println(errors.Is(err, fs.ErrNotExist))
	var pe *fs.PathError
	fmt.Println(errors.As(err, &pe), pe.Op)
	fmt.Println(errors.Unwrap(fmt.Errorf("x: %w", ErrA)) == ErrA)
}
